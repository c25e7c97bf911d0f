package io.gshare.workflows.cluster;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Lists the cluster's live sessions once, then sends each its reroute, a few at a time; every session is a step
 * whose detail says where it answers now. A session whose route could not be written fails its step, not the
 * others; the operation fails at the end naming them (a second PATCH, or this again, retries only what is left,
 * since a moved session ignores the same change).
 */
public class ClusterRerouteWorkflowImpl implements ClusterRerouteWorkflow {

  static final String LIST = "list the cluster's live sessions";
  /** Sessions rerouted at once: each is one update and one apply on the cluster. */
  static final int PARALLEL_SESSIONS = 8;

  private final ClusterRerouteActivities control = Workflow.newActivityStub(ClusterRerouteActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(20)).setMaximumAttempts(10).build())
          .build());

  /** One session's update waits for its workflow to write the route (up to its cluster activity's own retries). */
  private final ClusterRerouteActivities sessions = Workflow.newActivityStub(ClusterRerouteActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofMinutes(25))
          .setHeartbeatTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
              .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(5).build())
          .build());

  private Progress progress;

  @Override
  public OperationProgress reroute(ClusterRerouteRequest request) {
    progress = new Progress(WorkflowIds.clusterReroute(request.clusterId()), "cluster.reroute", request.clusterId(),
        List.of(LIST));
    String where = request.change().sessionDomain() + "/s/";
    List<String> live;
    try {
      progress.start(LIST);
      live = control.liveSessions(request.clusterId());
      progress.done(LIST, live.size() + " live session(s) move to " + where + "<id>/ ("
          + request.change().route().routing().wireName() + ")");
    } catch (ActivityFailure e) {
      throw failure("could not list the cluster's sessions: " + rootMessage(e));
    }
    live.forEach(id -> progress.add(step(id)));

    List<String> failed = new ArrayList<>();
    List<Promise<Void>> inFlight = new ArrayList<>();
    for (String session : live) {
      if (inFlight.size() >= PARALLEL_SESSIONS) {
        Promise.anyOf(inFlight).get();
        inFlight.removeIf(Promise::isCompleted);
      }
      progress.start(step(session));
      inFlight.add(Async.function(sessions::rerouteSession, session, request.change()).handle((outcome, error) -> {
        if (error != null) {
          failed.add(session);
          progress.failStep(step(session), "not moved: " + rootMessage(error));
        } else if (!outcome.moved()) {
          failed.add(session);
          progress.failStep(step(session), outcome.detail());
        } else {
          progress.done(step(session), outcome.detail());
        }
        return null;
      }));
    }
    Promise.allOf(inFlight).get();
    if (!failed.isEmpty()) {
      throw failure(failed.size() + " of " + live.size() + " session(s) not moved (" + String.join(", ", failed)
          + "): see their steps; PATCH the cluster's session_domain again to retry them");
    }
    progress.complete();
    record();
    return progress.snapshot();
  }

  private static String step(String sessionId) {
    return "move session " + sessionId;
  }

  private ApplicationFailure failure(String why) {
    progress.fail(why);
    record();
    return ApplicationFailure.newNonRetryableFailure(why, "cluster_reroute_failed");
  }

  private void record() {
    control.recordOperation(progress.snapshot());
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
