package io.gshare.api.support;

import io.gshare.sim.SimulatedCluster;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of api integration tests: the whole Spring application on a random port, against a real
 * PostgreSQL, the embedded Temporal server on a real port, and a simulated GPU cluster whose
 * cluster-worker activities poll {@code gshare-cluster-clu_sim}. Everything is shared per JVM.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureObservability(tracing = false)
public abstract class ApiIntegrationTest {

  public static final String SIM_CLUSTER_ID = "clu_sim";

  private static SimulatedCluster simulatedCluster;
  private static InProcessClusterWorker clusterWorker;
  private static String jdbcUrl;

  protected static synchronized SimulatedCluster simulatedCluster() {
    if (simulatedCluster == null) {
      simulatedCluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(), SimulatedCluster.Options.defaults());
      clusterWorker = new InProcessClusterWorker(TemporalTestServerSupport.address(), SIM_CLUSTER_ID, simulatedCluster);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        clusterWorker.close();
        simulatedCluster.close();
      }));
    }
    return simulatedCluster;
  }

  private static synchronized String jdbcUrl() {
    if (jdbcUrl == null) {
      jdbcUrl = EmbeddedPostgresSupport.newDatabase();
    }
    return jdbcUrl;
  }

  @DynamicPropertySource
  static void infrastructure(DynamicPropertyRegistry registry) {
    simulatedCluster();
    registry.add("spring.datasource.url", ApiIntegrationTest::jdbcUrl);
    registry.add("spring.datasource.username", () -> "postgres");
    registry.add("spring.datasource.password", () -> "");
    registry.add("gshare.temporal.address", TemporalTestServerSupport::address);
    registry.add("gshare.temporal.sticky-schedule-to-start", () -> "0s");
    registry.add("gshare.dev.simulated-cluster.id", () -> SIM_CLUSTER_ID);
    registry.add("gshare.dev.simulated-cluster.name", () -> "sim");
    registry.add("gshare.dev.simulated-cluster.session-domain", () -> "sessions.sim.example.com");
  }
}
