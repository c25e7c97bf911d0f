package io.gshare.api.system;

import io.gshare.api.temporal.TemporalProperties;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueResponse;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Who polls a task queue, from Temporal's DescribeTaskQueue. Answers are kept for a few seconds so a
 * dashboard refreshing /api/v1/system does not flood Temporal.
 */
@Service
public class TaskQueuePollers {

  private static final Logger log = LoggerFactory.getLogger(TaskQueuePollers.class);
  static final Duration CACHE_FOR = Duration.ofSeconds(5);
  static final String SOURCE = "describe_task_queue";

  public record Poller(String identity, String role, Instant lastAccess) {}

  /** @param source {@code describe_task_queue}, or {@code unknown} when Temporal did not answer */
  public record QueueStatus(String taskQueue, boolean polled, List<Poller> pollers, String source) {}

  private record Cached(QueueStatus status, Instant at) {}

  private final WorkflowServiceStubs stubs;
  private final TemporalProperties properties;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  TaskQueuePollers(WorkflowServiceStubs stubs, TemporalProperties properties) {
    this.stubs = stubs;
    this.properties = properties;
    this.clock = Clock.systemUTC();
  }

  /** The status of each queue; never throws for an unpolled queue or an unreachable Temporal. */
  public Map<String, QueueStatus> statusOf(List<String> taskQueues) {
    Map<String, QueueStatus> result = new LinkedHashMap<>();
    for (String queue : taskQueues) {
      Cached cached = cache.get(queue);
      if (cached != null && cached.at().plus(CACHE_FOR).isAfter(clock.instant())) {
        result.put(queue, cached.status());
        continue;
      }
      try {
        QueueStatus status = describe(queue);
        cache.put(queue, new Cached(status, clock.instant()));
        result.put(queue, status);
      } catch (RuntimeException e) {
        log.debug("could not tell who polls {}: {}", queue, e.toString());
        result.put(queue, new QueueStatus(queue, false, List.of(), "unknown"));
      }
    }
    return result;
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
    return new QueueStatus(queue, !pollers.isEmpty(), pollers, SOURCE);
  }

  private static String roleOf(String queue) {
    return TaskQueues.CONTROL.equals(queue) ? "control" : "cluster-worker";
  }
}
