package io.gshare.clusterworker;

import io.gshare.contract.internal.SessionStatus;
import io.gshare.contract.internal.StatusReport;
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

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        StatusReport report = SessionStatusReporter.report(client);
        assertThat(report.sessions()).singleElement().satisfies(s -> {
          assertThat(s.sessionId()).isEqualTo("ses_a");
          assertThat(s.phase()).isEqualTo("Running");
          assertThat(s.node()).isEqualTo("cpu-a");
          assertThat(s.podIp()).isNotBlank();
        });
      });
    }
  }

  @Test
  void saysWhatTheClusterSaysAboutPodsThatAreNotSimplyRunning() {
    var deleting = pod("gshare-ses-b", Map.of("gshare.io/session-id", "ses_b"));
    deleting.getMetadata().setDeletionTimestamp("2026-12-02T10:00:00Z");
    var oomKilled = pod("gshare-ses-c", Map.of("gshare.io/session-id", "ses_c"));
    oomKilled.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Failed")
        .addNewContainerStatus().withName("session").withNewState().withNewTerminated().withReason("OOMKilled")
        .withExitCode(137).endTerminated().endState().endContainerStatus().build());
    var evicted = pod("gshare-ses-d", Map.of("gshare.io/session-id", "ses_d"));
    evicted.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Failed").withReason("Evicted")
        .withMessage("The node was low on resource: memory.").build());

    StatusReport report = SessionStatusReporter.report(List.of(deleting, oomKilled, evicted));

    assertThat(report.complete()).isTrue();
    assertThat(report.sessions()).extracting(SessionStatus::sessionId, SessionStatus::phase,
        SessionStatus::message).containsExactly(
            org.assertj.core.groups.Tuple.tuple("ses_b", "Terminating", null),
            org.assertj.core.groups.Tuple.tuple("ses_c", "Failed", "container session OOMKilled (exit code 137)"),
            org.assertj.core.groups.Tuple.tuple("ses_d", "Failed", "Evicted: The node was low on resource: memory."));
  }

  private static io.fabric8.kubernetes.api.model.Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("gshare-sessions").withLabels(labels).endMetadata()
        .withNewSpec().withNodeName("cpu-a").addNewContainer().withName("session").withImage("registry.example.com/x:1")
        .endContainer().endSpec().build();
  }
}
