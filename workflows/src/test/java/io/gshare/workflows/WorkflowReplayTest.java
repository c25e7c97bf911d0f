package io.gshare.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Histories that real executions recorded (the api's integration tests on the Temporal dev server,
 * {@code -Dgshare.record-histories=...}) replay against today's workflow code. A change that would
 * break an execution already running in production fails here: ship it behind {@code Workflow.getVersion}.
 */
class WorkflowReplayTest {

  /** Every recorded history, with the workflow type it must be: a missing file fails the build. */
  static Stream<String> histories() {
    // "-before-lean": recorded before the lean lifecycle (Workflow.getVersion "lean-lifecycle"), kept so
    // that sessions started by the earlier code still replay.
    return Stream.of("cluster-attach", "session-lifecycle", "session-lossless-pause",
        "session-lifecycle-before-lean", "session-lossless-pause-before-lean",
        // A node drain that moved two slice sessions, and a session it moved lossless (NodeDrainIT).
        "node-drain-migrate", "session-drain-migrate-lossless",
        // An uncordon and a HAMi device-cordon sync (NodeDrainIT), and a pre-pull of three nodes (ImagePrepullIT).
        "node-uncordon", "node-devices", "image-prepull",
        // A rotation of one attached cluster, confirmed by its worker (TokenRotationIT): what a control
        // plane restarted mid-rotation replays to resume it.
        "token-rotation",
        // An idle-reaper sweep that told a session to pause (IdleReaperIT).
        "idle-reaper",
        // A new session domain moving a running and a paused session, and the running one's own history with
        // the reroute update it took (SessionLifecycleIT).
        "cluster-reroute", "session-rerouted",
        // A named metric query answered by a cluster's worker from its Prometheus (MetricQueriesIT).
        "metric-query",
        // A session paused off a card that reported a fatal Xid (the gpuFault signal), then ended (XidIT).
        "session-gpu-fault",
        // A new kubeconfig's proof and a node liveness sweep (ClusterLifecycleIT).
        "kubeconfig-proof", "node-liveness");
  }

  @ParameterizedTest
  @MethodSource("histories")
  void aRecordedHistoryReplaysAgainstTodaysCode(String name) throws Exception {
    String json = read("histories/" + name + ".json");
    assertThat(WorkflowExecutionHistory.fromJson(json).getEvents()).as("%s has events", name).hasSizeGreaterThan(10);

    WorkflowReplayer.replayWorkflowExecution(json, ControlWorkflows.IMPLEMENTATIONS.get(0),
        ControlWorkflows.IMPLEMENTATIONS.subList(1, ControlWorkflows.IMPLEMENTATIONS.size()).toArray(Class<?>[]::new));
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = WorkflowReplayTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as("recorded history %s (record it with the api's integration tests)", resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
