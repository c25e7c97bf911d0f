package io.gshare.api.temporal;

import io.gshare.workflows.common.TaskQueues;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleUpdate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Temporal Schedules the api creates at boot. Creating one again finds the one there and brings its spec and
 * action up to date, keeping a pause an operator set (a server keeps Schedules across restarts of the api);
 * while Temporal is unreachable, creating is tried again every {@code retryInterval} until all exist. A Schedule
 * named by {@link #runOnceAtBoot()} is also triggered once, as soon as this process has ensured it.
 */
public abstract class BootSchedules implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(BootSchedules.class);

  private final ScheduleClient schedules;
  private final Duration retryInterval;
  private volatile boolean scheduled;
  /** The Schedules of {@link #runOnceAtBoot()} this process has triggered. */
  private final Set<String> triggered = ConcurrentHashMap.newKeySet();

  protected BootSchedules(ScheduleClient schedules, Duration retryInterval) {
    this.schedules = schedules;
    this.retryInterval = retryInterval;
  }

  /** The shortest interval a Temporal Schedule takes: a shorter configured interval runs every second. */
  public static final Duration SHORTEST_INTERVAL = Duration.ofSeconds(1);

  /**
   * A sweep on the control queue: starts {@code workflowType} as {@code workflowId} every {@code every} (at least
   * {@link #SHORTEST_INTERVAL}). A run still going skips the next tick, and missed ticks are not replayed beyond one
   * interval (each run looks at now); a run is given up after five intervals, or {@code minTimeout} when that is
   * longer, and the next tick runs.
   */
  public static Schedule sweep(Class<?> workflowType, String workflowId, Duration every, Duration minTimeout) {
    Duration interval = every.compareTo(SHORTEST_INTERVAL) < 0 ? SHORTEST_INTERVAL : every;
    Duration timeout = interval.multipliedBy(5).compareTo(minTimeout) < 0 ? minTimeout : interval.multipliedBy(5);
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(workflowType)
            .setOptions(WorkflowOptions.newBuilder().setWorkflowId(workflowId)
                .setTaskQueue(TaskQueues.CONTROL).setWorkflowExecutionTimeout(timeout).build())
            .build())
        .setSpec(ScheduleSpec.newBuilder().setIntervals(List.of(new ScheduleIntervalSpec(interval))).build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
            .setCatchupWindow(interval.compareTo(Duration.ofSeconds(10)) < 0 ? Duration.ofSeconds(10) : interval)
            .build())
        .build();
  }

  /** The Schedules by id, as they should be. */
  protected abstract Map<String, Schedule> desired();

  /**
   * Of {@link #desired()}, the Schedules whose workflow should run once as soon as this process has ensured them,
   * rather than only at their next tick (skipped, as any tick, while a run is under way). None unless overridden.
   */
  protected Set<String> runOnceAtBoot() {
    return Set.of();
  }

  /** A listener that returns nothing: Spring would publish a returned value as an event. */
  @EventListener(ApplicationReadyEvent.class)
  public void onReady() {
    start();
  }

  /** Creates (or updates) every Schedule, triggering those of {@link #runOnceAtBoot()}; true once all are done. */
  public boolean start() {
    boolean all = true;
    for (Map.Entry<String, Schedule> schedule : desired().entrySet()) {
      String id = schedule.getKey();
      boolean done = ensure(id, schedule.getValue());
      if (done && runOnceAtBoot().contains(id) && !triggered.contains(id)) {
        done = trigger(id);
      }
      all &= done;
    }
    scheduled = all;
    return all;
  }

  /**
   * Per process, and harmless in every replica: it only retries creating this process's Schedules until they exist
   * (an idempotent create-or-update); the periodic work itself is the Schedules', one run at a time.
   */
  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    tasks.addFixedDelayTask(new FixedDelayTask(this::retryUntilScheduled, retryInterval, retryInterval));
  }

  /** Temporal may still be coming up when the api is ready: keep trying until every Schedule exists. */
  public void retryUntilScheduled() {
    if (!scheduled) {
      start();
    }
  }

  public boolean scheduled() {
    return scheduled;
  }

  /** Runs the Schedule's workflow now, unless a run is under way (then that run does the work). */
  private boolean trigger(String id) {
    try {
      schedules.getHandle(id).trigger(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
      triggered.add(id);
      log.info("Temporal Schedule {} triggered once at boot", id);
      return true;
    } catch (RuntimeException e) {
      log.warn("could not trigger the Temporal Schedule {} (retried every {}): {}", id, retryInterval, e.toString());
      return false;
    }
  }

  private boolean ensure(String id, Schedule desired) {
    try {
      schedules.createSchedule(id, desired, ScheduleOptions.newBuilder().build());
      log.info("Temporal Schedule {} created, every {}", id, desired.getSpec().getIntervals().get(0).getEvery());
      return true;
    } catch (ScheduleAlreadyRunningException exists) {
      try {
        schedules.getHandle(id).update(input -> new ScheduleUpdate(Schedule.newBuilder(desired)
            .setState(input.getDescription().getSchedule().getState()).build()));
        log.info("Temporal Schedule {} already there; its interval and settings brought up to date", id);
      } catch (RuntimeException e) {
        log.warn("Temporal Schedule {} exists but could not be updated: {}", id, e.toString());
      }
      return true;
    } catch (RuntimeException e) {
      log.warn("could not create the Temporal Schedule {} (retried every {}): {}", id, retryInterval, e.toString());
      return false;
    }
  }
}
