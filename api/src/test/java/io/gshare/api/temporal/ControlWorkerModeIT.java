package io.gshare.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gshare.api.alert.AlertProperties;
import io.gshare.api.session.SessionProperties;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.TemporalDevServerSupport;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;

/**
 * {@code --mode=worker}, the chart's separate control worker ({@code controlWorker.separate}), as it ships: the api's
 * runnable jar started with the flag beside this test's api, on the same PostgreSQL, Temporal and keys, polls the
 * control task queue for workflows and activities and serves no HTTP.
 */
class ControlWorkerModeIT extends ApiIntegrationTest {

  @Autowired WorkflowServiceStubs stubs;
  @Autowired Environment environment;
  @Autowired AlertProperties alerts;
  @Autowired SessionProperties sessions;

  @Test
  void theJarWithModeWorkerPollsTheControlQueueAndServesNoHttp() throws Exception {
    Path log = Files.createTempFile("control-worker", ".log");
    Path jar = Path.of("target", "gshare-api.jar").toAbsolutePath();
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx384m", "-jar", jar.toString(), "--mode=worker",
        "--spring.datasource.url=" + jdbcUrl(), "--spring.datasource.username=postgres",
        "--spring.datasource.password=", "--gshare.temporal.address=" + TemporalDevServerSupport.address(),
        "--gshare.security.key-dir=" + keyDir(), "--management.server.port=0", "--server.port=0",
        // Each process brings the boot Schedules it creates up to its own settings: the same as this test's api, or
        // the sweeps of the classes after it would run at the jar's defaults.
        "--gshare.idle.interval=" + environment.getProperty("gshare.idle.interval"),
        "--gshare.node.sweep-interval=" + environment.getProperty("gshare.node.sweep-interval"),
        "--gshare.alerts.delivery-interval=" + alerts.deliveryInterval().toMillis() + "ms",
        "--gshare.sessions.recovery-retry-interval=" + sessions.recoveryRetryInterval().toMillis() + "ms")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Process worker = builder.start();
    String identity = worker.pid() + "@";
    try {
      for (TaskQueueType type : List.of(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1))
            .failFast("the control worker exited; its log: " + log, () -> !worker.isAlive())
            .until(() -> pollers(type).stream().anyMatch(p -> p.getIdentity().startsWith(identity)
                && p.getIdentity().endsWith("/control")));
      }
      assertThat(Files.readString(log)).as("a worker without the web layer")
          .doesNotContain("Tomcat started on port").doesNotContain("Tomcat initialized");
    } finally {
      worker.destroy();
      if (!worker.waitFor(30, TimeUnit.SECONDS)) {
        worker.destroyForcibly();
      }
    }
  }

  private List<PollerInfo> pollers(TaskQueueType type) {
    return stubs.blockingStub().describeTaskQueue(DescribeTaskQueueRequest.newBuilder().setNamespace("default")
        .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.CONTROL)).setTaskQueueType(type).build())
        .getPollersList();
  }
}
