package io.gshare.api.system;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.system.TaskQueueProbeRequest;
import io.gshare.workflows.system.TaskQueueProbeResult;
import io.gshare.workflows.system.TaskQueueProbeWorkflow;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Who polls a task queue. A full Temporal server answers DescribeTaskQueue with its pollers; the
 * embedded dev server does not implement it, so there gShare asks through the queue itself: a
 * {@link TaskQueueProbeWorkflow} pings whoever polls it. Answers are kept for a few seconds so a
 * dashboard refreshing /api/v1/system does not flood Temporal.
 */
@Service
public class TaskQueuePollers {

  private static final Logger log = LoggerFactory.getLogger(TaskQueuePollers.class);
  static final Duration PROBE_WAIT = Duration.ofSeconds(3);
  static final Duration CACHE_FOR = Duration.ofSeconds(5);

  /** @param source {@code describe_task_queue} (a full server) or {@code probe} (the embedded server) */
  public record Poller(String identity, String role, Instant lastAccess) {}

  public record QueueStatus(String taskQueue, boolean polled, List<Poller> pollers, String source) {}

  private record Cached(QueueStatus status, Instant at) {}

  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final TemporalProperties properties;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private volatile Boolean describeSupported;

  TaskQueuePollers(WorkflowServiceStubs stubs, WorkflowClient client, TemporalProperties properties) {
    this.stubs = stubs;
    this.client = client;
    this.properties = properties;
    this.clock = Clock.systemUTC();
  }

  /** The status of each queue, looked up in parallel; never throws for an unpolled queue. */
  public Map<String, QueueStatus> statusOf(List<String> taskQueues) {
    Map<String, CompletableFuture<QueueStatus>> pending = new LinkedHashMap<>();
    for (String queue : taskQueues) {
      Cached cached = cache.get(queue);
      if (cached != null && cached.at().plus(CACHE_FOR).isAfter(clock.instant())) {
        pending.put(queue, CompletableFuture.completedFuture(cached.status()));
      } else {
        pending.put(queue, lookUp(queue).thenApply(status -> {
          cache.put(queue, new Cached(status, clock.instant()));
          return status;
        }));
      }
    }
    Map<String, QueueStatus> result = new LinkedHashMap<>();
    pending.forEach((queue, future) -> {
      try {
        result.put(queue, future.get(PROBE_WAIT.toMillis() + 5_000, TimeUnit.MILLISECONDS));
      } catch (Exception e) {
        log.debug("could not tell who polls {}: {}", queue, e.toString());
        result.put(queue, new QueueStatus(queue, false, List.of(), "unknown"));
      }
    });
    return result;
  }

  private CompletableFuture<QueueStatus> lookUp(String queue) {
    if (!Boolean.FALSE.equals(describeSupported)) {
      try {
        QueueStatus described = describe(queue);
        describeSupported = true;
        return CompletableFuture.completedFuture(described);
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
          throw e;
        }
        log.info("Temporal does not implement DescribeTaskQueue (the embedded dev server); probing queues instead");
        describeSupported = false;
      }
    }
    return probe(queue);
  }

  private QueueStatus describe(String queue) {
    List<Poller> pollers = new ArrayList<>();
    TaskQueueType[] types = TaskQueues.CONTROL.equals(queue)
        ? new TaskQueueType[] {TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY}
        : new TaskQueueType[] {TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY};
    for (TaskQueueType type : types) {
      DescribeTaskQueueResponse response = stubs.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS)
          .describeTaskQueue(DescribeTaskQueueRequest.newBuilder()
              .setNamespace(properties.namespace())
              .setTaskQueue(TaskQueue.newBuilder().setName(queue).build())
              .setTaskQueueType(type)
              .build());
      response.getPollersList().forEach(p -> pollers.add(new Poller(p.getIdentity(), roleOf(queue),
          Instant.ofEpochSecond(p.getLastAccessTime().getSeconds(), p.getLastAccessTime().getNanos()))));
    }
    return new QueueStatus(queue, !pollers.isEmpty(), pollers, "describe_task_queue");
  }

  private CompletableFuture<QueueStatus> probe(String queue) {
    TaskQueueProbeWorkflow workflow = client.newWorkflowStub(TaskQueueProbeWorkflow.class,
        WorkflowOptions.newBuilder()
            .setWorkflowId(WorkflowIds.taskQueueProbe(queue))
            .setTaskQueue(TaskQueues.CONTROL)
            // Concurrent callers share the probe under way.
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setWorkflowExecutionTimeout(PROBE_WAIT.plusSeconds(10))
            .build());
    return WorkflowClient.execute(workflow::probe, new TaskQueueProbeRequest(queue, PROBE_WAIT))
        .thenApply(this::fromProbe);
  }

  private QueueStatus fromProbe(TaskQueueProbeResult result) {
    List<Poller> pollers = result.polled() && result.worker() != null
        ? List.of(new Poller(result.worker().identity(), result.worker().role(), clock.instant()))
        : List.of();
    return new QueueStatus(result.taskQueue(), result.polled(), pollers, "probe");
  }

  private static String roleOf(String queue) {
    return TaskQueues.CONTROL.equals(queue) ? "control" : "cluster-worker";
  }
}
