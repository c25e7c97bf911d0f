package io.gshare.workflows.cluster;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.system.WorkerIdentity;
import io.gshare.workflows.system.WorkerPingActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

public class ClusterAttachWorkflowImpl implements ClusterAttachWorkflow {

  private static final Logger log = Workflow.getLogger(ClusterAttachWorkflowImpl.class);

  static final String REACH = "reach the apiserver";
  static final String RUNTIME = "check the runtime";
  static final String NAMESPACE = "prepare namespace gshare-system";
  static final String TOKEN = "install the operator token";
  static final String DEPLOY = "deploy the cluster-worker";
  static final String POLLING = "wait for the worker to poll its queue";
  static final String INVENTORY = "wait for the first inventory";
  static final String CONNECTED = "mark connected";
  static final List<String> STEPS = List.of(REACH, RUNTIME, NAMESPACE, TOKEN, DEPLOY, POLLING, INVENTORY, CONNECTED);

  /** Attempts at reaching the apiserver before it counts as unreachable (about a minute in all). */
  static final int REACH_ATTEMPTS = 5;

  private final ClusterRemoteActivities probe = Workflow.newActivityStub(ClusterRemoteActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(20))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2)).setBackoffCoefficient(2)
              .setMaximumInterval(Duration.ofSeconds(20)).setMaximumAttempts(REACH_ATTEMPTS).build())
          .build());
  private final ClusterRemoteActivities remote = Workflow.newActivityStub(ClusterRemoteActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2)).setBackoffCoefficient(2)
              .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(5)
              .setDoNotRetry(IllegalArgumentException.class.getName()).build())
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
  public OperationProgress attach(ClusterAttachRequest request) {
    String clusterId = request.clusterId();
    progress = new Progress(WorkflowIds.clusterAttach(clusterId), "cluster.attach", clusterId, STEPS);
    long startedAt = Workflow.currentTimeMillis();
    try {
      state.markStatus(clusterId, ClusterStatus.ATTACHING, null);

      progress.start(REACH);
      String version;
      try {
        version = probe.probeApiserver(clusterId);
      } catch (ActivityFailure e) {
        throw refuse("Unreachable: the control plane could not reach the cluster's apiserver after "
            + REACH_ATTEMPTS + " attempts (" + rootMessage(e) + "). The kubeconfig's server: must be an address reachable from"
            + " the control plane's pods (a LAN/WAN IP, not 127.0.0.1)");
      }
      progress.done(REACH, "apiserver " + version);

      progress.start(RUNTIME);
      ClusterDescription description = remote.checkRuntime(clusterId);
      Map<String, Boolean> checks = RuntimeChecks.of(description);
      // In the checks' own order (a Map.of would iterate differently in each worker JVM).
      Map<String, Boolean> required = new LinkedHashMap<>(checks);
      required.keySet().retainAll(List.of("runtime_class_nvidia", "hami_device_plugin"));
      List<String> missing = RuntimeChecks.failures(required);
      if (!missing.isEmpty()) {
        throw refuse("registration refused: " + String.join("; ", missing));
      }
      boolean ingress = description.ingressController();
      progress.done(RUNTIME, description.nodes().size() + " nodes, " + description.gpuCount() + " GPUs"
          + (ingress ? "" : "; warning: no ingress-nginx controller, session URLs will not work"));

      progress.start(NAMESPACE);
      remote.prepareNamespace(clusterId);
      progress.done(NAMESPACE, null);

      progress.start(TOKEN);
      remote.installOperatorToken(clusterId);
      progress.done(TOKEN, "Secret gshare-operator-internal-jwt written");

      awaitWorker(request, startedAt);

      progress.start(CONNECTED);
      state.markStatus(clusterId, ClusterStatus.CONNECTED,
          ingress ? null : "no ingress-nginx controller: session URLs will not work");
      progress.done(CONNECTED, null);
      progress.complete();
      state.recordOperation(progress.snapshot());
      return progress.snapshot();
    } catch (AttachRefused | ActivityFailure failure) {
      String why = failure instanceof AttachRefused ? failure.getMessage()
          : "a step kept failing: " + rootMessage(failure);
      log.warn("attach of {} failed: {}", clusterId, why);
      progress.fail(why);
      state.markStatus(clusterId, ClusterStatus.FAILED, why);
      state.recordOperation(progress.snapshot());
      throw ApplicationFailure.newNonRetryableFailure(why, FailureTypes.CLUSTER_ATTACH_FAILED);
    }
  }

  /** (Re)deploys the worker until one polls its queue and reports, at most {@code workerAttempts} times. */
  private void awaitWorker(ClusterAttachRequest request, long startedAt) {
    String clusterId = request.clusterId();
    WorkerPingActivities ping = Workflow.newActivityStub(WorkerPingActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setScheduleToStartTimeout(request.workerWait())
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
    String lastProblem = null;
    for (int attempt = 1; attempt <= request.workerAttempts(); attempt++) {
      progress.start(DEPLOY);
      String deployment = remote.deployWorker(clusterId);
      progress.done(DEPLOY, (attempt > 1 ? "attempt " + attempt + ": " : "") + deployment);

      progress.start(POLLING);
      WorkerIdentity worker;
      try {
        worker = ping.ping();
      } catch (ActivityFailure e) {
        lastProblem = WorkerNotPolling.problem(clusterId, request.workerWait());
        log.warn("attach {}: {} (attempt {})", clusterId, lastProblem, attempt);
        continue;
      }
      progress.done(POLLING, "polled by " + worker.identity());

      progress.start(INVENTORY);
      long deadline = Workflow.currentTimeMillis() + request.workerWait().toMillis();
      while (Workflow.currentTimeMillis() < deadline) {
        if (state.inventorySeen(clusterId, startedAt)) {
          progress.done(INVENTORY, null);
          return;
        }
        Workflow.sleep(Duration.ofSeconds(2));
      }
      lastProblem = "the cluster-worker polls its queue but sent no inventory within "
          + request.workerWait().toSeconds() + "s: check that it reaches the control plane's /internal"
          + " (ingress.internalPlane.enabled, sourceRange) and its logs";
      log.warn("attach {}: {} (attempt {})", clusterId, lastProblem, attempt);
    }
    throw refuse(lastProblem + " (after " + request.workerAttempts() + " deployments)");
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }

  private static AttachRefused refuse(String why) {
    return new AttachRefused(why);
  }

  /** A reason to stop the attach; never leaves the workflow. */
  private static final class AttachRefused extends RuntimeException {
    AttachRefused(String message) {
      super(message, null, false, false);
    }
  }
}
