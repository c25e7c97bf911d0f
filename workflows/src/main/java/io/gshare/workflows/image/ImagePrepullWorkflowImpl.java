package io.gshare.workflows.image;

import static io.gshare.workflows.common.Failures.rootMessage;

import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.Progress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One step per cluster ({@code pull on <clusterId>}), run {@value #PARALLEL_CLUSTERS} clusters at a time;
 * each step's detail lists every node and what happened there. A node that fails fails its cluster's step
 * but not the others; the operation ends failed, naming those nodes, once every cluster has answered. A
 * cluster whose worker cannot be reached fails its step when its time is up.
 */
public class ImagePrepullWorkflowImpl implements ImagePrepullWorkflow {

  static final int PARALLEL_CLUSTERS = 4;
  /** A 15 GiB image over a slow registry link, and the pod's start and deletion. */
  static final Duration PULL_TIMEOUT = Duration.ofMinutes(60);
  /** Room for retried attempts (the pods are found again) and a worker that starts late. */
  static final Duration CLUSTER_TIMEOUT = Duration.ofMinutes(90);

  private final ImagePrepullActivities control = Workflow.newActivityStub(ImagePrepullActivities.class,
      ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.CONTROL)
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofSeconds(20)).build())
          .build());

  private Progress progress;

  static String step(String clusterId) {
    return "pull on " + clusterId;
  }

  @Override
  public OperationProgress prepull(PrepullRequest request) {
    progress = new Progress(WorkflowIds.imagePrepull(request.imageId()), "image.prepull", request.imageId(),
        request.clusters().stream().map(c -> step(c.clusterId())).toList());
    Map<String, List<NodePull>> results = new LinkedHashMap<>();
    List<Promise<Void>> inFlight = new ArrayList<>();
    for (PrepullRequest.ClusterNodes cluster : request.clusters()) {
      if (inFlight.size() >= PARALLEL_CLUSTERS) {
        Promise.anyOf(inFlight).get();
        inFlight.removeIf(Promise::isCompleted);
      }
      progress.start(step(cluster.clusterId()));
      ImagePullClusterActivities stub = clusterStub(cluster.clusterId());
      inFlight.add(Async.function(stub::pull, new ImagePullRequest(request.imageId(), request.reference(),
          cluster.hostnames())).handle((result, failure) -> {
            List<NodePull> nodes = failure == null ? result.nodes() : cluster.hostnames().stream()
                .map(h -> NodePull.failed(h, "the cluster's worker did not answer: " + rootMessage(failure))).toList();
            results.put(cluster.clusterId(), nodes);
            String detail = summary(nodes);
            if (nodes.stream().anyMatch(NodePull::failed)) {
              progress.failStep(step(cluster.clusterId()), detail);
            } else {
              progress.done(step(cluster.clusterId()), detail);
            }
            return null;
          }));
    }
    Promise.allOf(inFlight).get();

    List<String> failed = results.values().stream().flatMap(List::stream).filter(NodePull::failed)
        .map(NodePull::toString).toList();
    if (!failed.isEmpty()) {
      long total = results.values().stream().mapToLong(List::size).sum();
      String why = request.reference() + " not pulled on " + failed.size() + " of " + total + " node(s): "
          + String.join("; ", failed) + ". The other nodes have it; free space or fix the registry access and pre-pull"
          + " again (nodes that have it are skipped)";
      progress.fail(why);
      record();
      throw ApplicationFailure.newNonRetryableFailure(why, "image_prepull_incomplete");
    }
    progress.complete();
    record();
    return progress.snapshot();
  }

  /** {@code 2 pulled, 1 already present, 1 failed — a6000-0: pulled; ...}. */
  static String summary(List<NodePull> nodes) {
    Map<String, Long> counts = nodes.stream().collect(Collectors.groupingBy(NodePull::outcome, LinkedHashMap::new,
        Collectors.counting()));
    String head = List.of(NodePull.PULLED, NodePull.ALREADY_PRESENT, NodePull.FAILED).stream()
        .filter(counts::containsKey).map(o -> counts.get(o) + " " + o).collect(Collectors.joining(", "));
    return (head.isEmpty() ? "no node" : head) + " — "
        + nodes.stream().map(NodePull::toString).collect(Collectors.joining("; "));
  }

  /** The cluster's worker: a pull heartbeats while it waits; a retried attempt finds the pods of the last. */
  static ImagePullClusterActivities clusterStub(String clusterId) {
    return Workflow.newActivityStub(ImagePullClusterActivities.class, ActivityOptions.newBuilder()
        .setTaskQueue(TaskQueues.cluster(clusterId))
        .setStartToCloseTimeout(PULL_TIMEOUT)
        .setScheduleToCloseTimeout(CLUSTER_TIMEOUT)
        .setHeartbeatTimeout(Duration.ofSeconds(60))
        .setRetryOptions(RetryOptions.newBuilder().setInitialInterval(Duration.ofSeconds(2))
            .setMaximumInterval(Duration.ofSeconds(30)).setMaximumAttempts(3).build())
        .build());
  }

  /** Stores where the operation stands. */
  private void record() {
    control.recordOperation(progress.snapshot());
  }

  @Override
  public OperationProgress progress() {
    return progress == null ? null : progress.snapshot();
  }
}
