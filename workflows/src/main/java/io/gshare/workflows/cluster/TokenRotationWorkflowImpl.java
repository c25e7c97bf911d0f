package io.gshare.workflows.cluster;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

public class TokenRotationWorkflowImpl implements TokenRotationWorkflow {

  private static final Logger log = Workflow.getLogger(TokenRotationWorkflowImpl.class);

  static final String LIST = "list the attached clusters";
  /** Attempts at writing a cluster's Secret before it counts as unreachable (about three minutes in all). */
  static final int WRITE_ATTEMPTS = 5;

  static String step(String clusterId) {
    return "rotate " + clusterId;
  }

  private final ClusterRemoteActivities remote = Workflow.newActivityStub(ClusterRemoteActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(5)).setBackoffCoefficient(2)
              .setMaximumInterval(Duration.ofSeconds(60)).setMaximumAttempts(WRITE_ATTEMPTS)
              .setDoNotRetry(IllegalArgumentException.class.getName()).build())
          .build());
  private final TokenRotationActivities tokens = Workflow.newActivityStub(TokenRotationActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(10)).setMaximumAttempts(10).build())
          .build());
  private final ClusterStateActivities state = Workflow.newActivityStub(ClusterStateActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(10)).setMaximumAttempts(10).build())
          .build());

  private Progress progress;

  @Override
  public OperationProgress rotate(TokenRotationRequest request) {
    String operationId = Workflow.getInfo().getWorkflowId();
    progress = new Progress(operationId, "token.rotation", request.clusterId(), List.of(LIST));
    progress.start(LIST);
    List<String> clusters = request.clusterId() != null ? List.of(request.clusterId()) : tokens.rotatableClusters();
    clusters.forEach(c -> progress.add(step(c)));
    progress.done(LIST, clusters.size() + (clusters.size() == 1 ? " cluster" : " clusters"));

    // Write every cluster's Secret first, then wait for all the workers together.
    Map<String, IssuedToken> written = new LinkedHashMap<>();
    for (String clusterId : clusters) {
      progress.start(step(clusterId));
      try {
        written.put(clusterId, remote.rotateOperatorToken(clusterId));
      } catch (ActivityFailure e) {
        String why = "unreachable: the token Secret could not be written after " + WRITE_ATTEMPTS + " attempts ("
            + rootMessage(e) + "); the worker keeps its current token";
        log.warn("token rotation of {}: {}", clusterId, why);
        progress.failStep(step(clusterId), why + alertIfExpiring(clusterId, request));
      }
    }

    long deadline = Workflow.currentTimeMillis() + request.confirmWait().toMillis();
    while (!written.isEmpty()) {
      for (var it = written.entrySet().iterator(); it.hasNext(); ) {
        IssuedToken issued = it.next().getValue();
        if (issued.jti().equals(tokens.tokenState(issued.clusterId()).seenJti())) {
          progress.done(step(issued.clusterId()), "token " + issued.jti() + " expires "
              + Instant.ofEpochMilli(issued.expiresAt()) + "; the worker authenticates with it");
          it.remove();
        }
      }
      if (written.isEmpty() || Workflow.currentTimeMillis() >= deadline) {
        break;
      }
      Workflow.sleep(request.confirmPoll());
    }
    for (IssuedToken issued : written.values()) {
      String why = "token " + issued.jti() + " written, but the worker did not authenticate with it within "
          + request.confirmWait().toSeconds() + "s (is it running? it re-reads the Secret's file as the kubelet updates it)";
      log.warn("token rotation of {}: {}", issued.clusterId(), why);
      progress.failStep(step(issued.clusterId()), why + alertIfExpiring(issued.clusterId(), request));
    }

    progress.complete();
    state.recordOperation(progress.snapshot());
    return progress.snapshot();
  }

  /** Alerts when the token the worker still uses expires within {@code alertWithin}; says so, or nothing. */
  private String alertIfExpiring(String clusterId, TokenRotationRequest request) {
    OperatorTokenState current = tokens.tokenState(clusterId);
    if (current.seenExpiresAt() == 0) {
      return "";
    }
    long left = current.seenExpiresAt() - Workflow.currentTimeMillis();
    if (left >= request.alertWithin().toMillis()) {
      return "";
    }
    String reason = "the operator token of cluster " + clusterId + " that its worker uses "
        + (left <= 0 ? "expired at " : "expires at ") + Instant.ofEpochMilli(current.seenExpiresAt())
        + " and could not be rotated; once expired the worker's reports are refused (401)";
    tokens.alertExpiring(clusterId, reason);
    return "; alert raised: its current token expires at " + Instant.ofEpochMilli(current.seenExpiresAt());
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
