package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionStatusReporterTest {

  @Test
  void reportsEverySessionPodOfTheClusterAndNothingElse() {
    SimSeed seed = new SimSeed("v1.36.0", List.of(new SimSeed.NodeSpec("cpu-a", "cpu", null, Map.of())), null);
    try (SimulatedCluster cluster = SimulatedCluster.start(seed, SimulatedCluster.Options.defaults());
        KubernetesClient client = cluster.newClient()) {
      client.resource(new NamespaceBuilder().withNewMetadata().withName("gshare-sessions").endMetadata().build()).create();
      client.resource(pod("gshare-ses-a", Map.of("gshare.io/session-id", "ses_a"))).create();
      client.resource(pod("someone-elses", Map.of("app", "other"))).create();

      assertThat(SessionStatusReporter.report(client).complete()).isTrue();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        SessionStatusReporter.Report report = SessionStatusReporter.report(client);
        assertThat(report.sessions()).singleElement().satisfies(s -> {
          assertThat(s.sessionId()).isEqualTo("ses_a");
          assertThat(s.phase()).isEqualTo("Running");
          assertThat(s.node()).isEqualTo("cpu-a");
          assertThat(s.podIp()).isNotBlank();
        });
      });

      client.pods().inNamespace("gshare-sessions").withName("gshare-ses-a").delete();
      await().atMost(Duration.ofSeconds(20)).until(() -> SessionStatusReporter.report(client).sessions().stream()
          .allMatch(s -> "Terminating".equals(s.phase())));
    }
  }

  private static io.fabric8.kubernetes.api.model.Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("gshare-sessions").withLabels(labels).endMetadata()
        .withNewSpec().withNodeName("cpu-a").addNewContainer().withName("session").withImage("registry.example.com/x:1")
        .endContainer().endSpec().build();
  }
}
