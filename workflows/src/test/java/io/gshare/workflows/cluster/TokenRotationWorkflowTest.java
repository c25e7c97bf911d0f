package io.gshare.workflows.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.contains;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import com.google.protobuf.util.Timestamps;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.OperationStatus;
import io.gshare.workflows.common.OperationStep;
import io.gshare.workflows.common.StepStatus;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.TestWorkflowExtension;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TokenRotationWorkflowTest {

  private static final long DAY = Duration.ofDays(1).toMillis();
  private static final TokenRotationRequest ALL =
      new TokenRotationRequest(null, Duration.ofMinutes(3), Duration.ofSeconds(10), Duration.ofDays(2));

  @RegisterExtension
  static final TestWorkflowExtension testWorkflow = TestWorkflowExtension.newBuilder()
      .registerWorkflowImplementationTypes(TokenRotationWorkflowImpl.class)
      .setDoNotStart(true)
      .build();

  private ClusterRemoteActivities remote;
  private TokenRotationActivities tokens;
  private ClusterStateActivities state;

  @BeforeEach
  void mocks() {
    remote = mock(ClusterRemoteActivities.class, withSettings().withoutAnnotations());
    tokens = mock(TokenRotationActivities.class, withSettings().withoutAnnotations());
    state = mock(ClusterStateActivities.class, withSettings().withoutAnnotations());
  }

  private TokenRotationWorkflow start(TestWorkflowEnvironment env, Worker worker, String workflowId) {
    env.newWorker(TaskQueues.CONTROL).registerActivitiesImplementations(remote, tokens, state);
    env.start();
    return env.getWorkflowClient().newWorkflowStub(TokenRotationWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(worker.getTaskQueue()).build());
  }

  private static IssuedToken issued(String clusterId, String jti, long now) {
    return new IssuedToken(clusterId, jti, now, now + 7 * DAY);
  }

  private static OperatorTokenState using(String clusterId, String jti, long seenExpiresAt) {
    return new OperatorTokenState(clusterId, "latest", 0, jti, seenExpiresAt);
  }

  private static Map<String, OperationStep> steps(OperationProgress progress) {
    return progress.steps().stream().collect(Collectors.toMap(OperationStep::name, Function.identity()));
  }

  @Test
  void rotatesEveryClusterReportsTheUnreachableAndTheUnconfirmedAndAlertsOnlyWhereTheTokenIsAboutToExpire(
      TestWorkflowEnvironment env, Worker worker) {
    long now = env.currentTimeMillis();
    when(tokens.rotatableClusters()).thenReturn(List.of("clu_a", "clu_down", "clu_slow", "clu_stuck", "clu_fresh"));
    when(remote.rotateOperatorToken("clu_a")).thenReturn(issued("clu_a", "a2", now));
    when(remote.rotateOperatorToken("clu_down")).thenThrow(new RuntimeException("connect timed out"));
    when(remote.rotateOperatorToken("clu_slow")).thenReturn(issued("clu_slow", "s2", now));
    when(remote.rotateOperatorToken("clu_stuck")).thenReturn(issued("clu_stuck", "t2", now));
    when(remote.rotateOperatorToken("clu_fresh")).thenThrow(new RuntimeException("connection refused"));
    when(tokens.tokenState("clu_a")).thenReturn(using("clu_a", "a2", now + 7 * DAY));
    // The worker takes the new token on its third report.
    when(tokens.tokenState("clu_slow")).thenReturn(using("clu_slow", "s1", now + 6 * DAY),
        using("clu_slow", "s1", now + 6 * DAY), using("clu_slow", "s2", now + 7 * DAY));
    // Never takes it, and its token has a day left.
    when(tokens.tokenState("clu_stuck")).thenReturn(using("clu_stuck", "t1", now + DAY));
    when(tokens.tokenState("clu_down")).thenReturn(using("clu_down", "d1", now + DAY));
    // Unreachable too, but its token still has five days.
    when(tokens.tokenState("clu_fresh")).thenReturn(using("clu_fresh", "f1", now + 5 * DAY));

    OperationProgress result = start(env, worker, WorkflowIds.TOKEN_ROTATION).rotate(ALL);

    assertThat(result.status()).isEqualTo(OperationStatus.COMPLETED);
    Map<String, OperationStep> steps = steps(result);
    assertThat(result.steps()).extracting(OperationStep::name).containsExactly(TokenRotationWorkflowImpl.LIST,
        "rotate clu_a", "rotate clu_down", "rotate clu_slow", "rotate clu_stuck", "rotate clu_fresh");
    assertThat(steps.get("rotate clu_a").status()).isEqualTo(StepStatus.DONE);
    assertThat(steps.get("rotate clu_a").detail()).contains("a2").contains("the worker authenticates with it");
    assertThat(steps.get("rotate clu_slow").status()).isEqualTo(StepStatus.DONE);
    assertThat(steps.get("rotate clu_down").status()).isEqualTo(StepStatus.FAILED);
    assertThat(steps.get("rotate clu_down").detail()).contains("unreachable").contains("connect timed out")
        .contains("alert raised");
    assertThat(steps.get("rotate clu_stuck").status()).isEqualTo(StepStatus.FAILED);
    assertThat(steps.get("rotate clu_stuck").detail()).contains("did not authenticate with it within 180s")
        .contains("alert raised");
    assertThat(steps.get("rotate clu_fresh").status()).isEqualTo(StepStatus.FAILED);
    assertThat(steps.get("rotate clu_fresh").detail()).doesNotContain("alert");

    // Bounded retries of the unreachable cluster, then the others went on.
    verify(remote, times(TokenRotationWorkflowImpl.WRITE_ATTEMPTS)).rotateOperatorToken("clu_down");
    verify(tokens).alertExpiring(eq("clu_down"), contains("could not be rotated"));
    verify(tokens).alertExpiring(eq("clu_stuck"), anyString());
    verify(tokens, never()).alertExpiring(eq("clu_fresh"), anyString());
    verify(tokens, never()).alertExpiring(eq("clu_a"), anyString());
    verify(tokens, never()).alertExpiring(eq("clu_slow"), anyString());
    verify(state).recordOperation(any());
    // The confirmation wait is bounded: three minutes of workflow time, skipped. Measured on the workflow's own
    // history (first to last event): the test server may skip its clock far ahead once the workflow has ended.
    var events = env.getWorkflowClient().fetchHistory(WorkflowIds.TOKEN_ROTATION).getHistory().getEventsList();
    long ran = Timestamps.toMillis(events.get(events.size() - 1).getEventTime())
        - Timestamps.toMillis(events.get(0).getEventTime());
    assertThat(ran).isGreaterThanOrEqualTo(Duration.ofMinutes(3).toMillis())
        .isLessThan(Duration.ofMinutes(10).toMillis());
  }

  @Test
  void oneClusterRotatesWithoutListingTheOthers(TestWorkflowEnvironment env, Worker worker) {
    long now = env.currentTimeMillis();
    when(remote.rotateOperatorToken("clu_a")).thenReturn(issued("clu_a", "a2", now));
    when(tokens.tokenState("clu_a")).thenReturn(using("clu_a", "a2", now + 7 * DAY));

    OperationProgress result = start(env, worker, WorkflowIds.tokenRotation("clu_a"))
        .rotate(new TokenRotationRequest("clu_a", ALL.confirmWait(), ALL.confirmPoll(), ALL.alertWithin()));

    assertThat(result.operationId()).isEqualTo("token-rotation-clu_a");
    assertThat(result.objectId()).isEqualTo("clu_a");
    assertThat(steps(result).get("rotate clu_a").status()).isEqualTo(StepStatus.DONE);
    verify(tokens, never()).rotatableClusters();
  }

  /**
   * A control plane that dies after signing and writing, before the activity completes: the retry signs
   * and writes again. Both tokens verify until they expire; the rotation confirms the one it recorded last.
   */
  @Test
  void aRotationInterruptedAfterWritingSignsAgainAndConfirmsTheLastToken(TestWorkflowEnvironment env, Worker worker) {
    long now = env.currentTimeMillis();
    when(remote.rotateOperatorToken("clu_a")).thenThrow(new RuntimeException("worker lost"))
        .thenReturn(issued("clu_a", "a3", now));
    when(tokens.tokenState("clu_a")).thenReturn(using("clu_a", "a2", now + 7 * DAY), using("clu_a", "a3", now + 7 * DAY));

    OperationProgress result = start(env, worker, WorkflowIds.tokenRotation("clu_a"))
        .rotate(new TokenRotationRequest("clu_a", ALL.confirmWait(), ALL.confirmPoll(), ALL.alertWithin()));

    assertThat(steps(result).get("rotate clu_a").status()).isEqualTo(StepStatus.DONE);
    assertThat(steps(result).get("rotate clu_a").detail()).contains("a3");
    verify(remote, times(2)).rotateOperatorToken("clu_a");
  }
}
