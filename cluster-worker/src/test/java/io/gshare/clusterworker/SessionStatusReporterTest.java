package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.contract.internal.SessionStatus;
import io.gshare.contract.internal.StatusReport;
import io.gshare.sim.SimSeed;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** The session status report, from a real apiserver's pods (the module's shared cluster) and from given pods. */
class SessionStatusReporterTest {

  private static final String NODE = "status-cpu-a";

  @Test
  void reportsEverySessionPodOfTheClusterAndNothingElse() {
    SharedKubeCluster.addNodes(new SimSeed.NodeSpec(NODE, "cpu", null, Map.of()));
    try (KubernetesClient client = SharedKubeCluster.get().newClient()) {
      SharedKubeCluster.ensureNamespace(client, "gshare-sessions");
      client.resource(pod("gshare-ses-st-a", Map.of("gshare.io/session-id", "ses_st_a"))).create();
      client.resource(pod("someone-elses", Map.of("app", "other"))).create();
      try {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          StatusReport report = SessionStatusReporter.report(client);
          // The namespace is the module's: other tests' sessions are reported too, never a pod that is none.
          assertThat(report.sessions()).hasSize(client.pods().inNamespace("gshare-sessions")
              .withLabel("gshare.io/session-id").list().getItems().size());
          assertThat(report.sessions()).filteredOn(s -> "ses_st_a".equals(s.sessionId())).singleElement().satisfies(s -> {
            assertThat(s.phase()).isEqualTo("Running");
            assertThat(s.node()).isEqualTo(NODE);
            assertThat(s.podIp()).isNotBlank();
          });
        });
      } finally {
        client.pods().inNamespace("gshare-sessions").withName("gshare-ses-st-a").withGracePeriod(0).delete();
        client.pods().inNamespace("gshare-sessions").withName("someone-elses").withGracePeriod(0).delete();
      }
    }
  }

  @Test
  void saysWhatTheClusterSaysAboutPodsThatAreNotSimplyRunning() {
    var deleting = pod("gshare-ses-b", Map.of("gshare.io/session-id", "ses_b"));
    deleting.getMetadata().setDeletionTimestamp("2026-12-02T10:00:00Z");
    var oomKilled = pod("gshare-ses-c", Map.of("gshare.io/session-id", "ses_c"));
    oomKilled.setStatus(new PodStatusBuilder().withPhase("Failed")
        .addNewContainerStatus().withName("session").withNewState().withNewTerminated().withReason("OOMKilled")
        .withExitCode(137).endTerminated().endState().endContainerStatus().build());
    var evicted = pod("gshare-ses-d", Map.of("gshare.io/session-id", "ses_d"));
    evicted.setStatus(new PodStatusBuilder().withPhase("Failed").withReason("Evicted")
        .withMessage("The node was low on resource: memory.").build());

    StatusReport report = SessionStatusReporter.report(List.of(deleting, oomKilled, evicted));

    assertThat(report.complete()).isTrue();
    assertThat(report.sessions()).extracting(SessionStatus::sessionId, SessionStatus::phase,
        SessionStatus::message).containsExactly(
            Tuple.tuple("ses_b", "Terminating", null),
            Tuple.tuple("ses_c", "Failed", "container session OOMKilled (exit code 137)"),
            Tuple.tuple("ses_d", "Failed", "Evicted: The node was low on resource: memory."));
  }

  private static Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("gshare-sessions").withLabels(labels).endMetadata()
        .withNewSpec().withNodeName(NODE).addNewContainer().withName("session").withImage("registry.example.com/x:1")
        .endContainer().endSpec().build();
  }
}
