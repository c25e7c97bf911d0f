package io.gshare.api.temporal;

import io.gshare.workflows.ControlWorkflows;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The control worker: every workflow and the control activities, on {@link TaskQueues#CONTROL}. It
 * starts after the rest of the context (so activities find their beans) and stops before it.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.worker", name = "enabled", havingValue = "true", matchIfMissing = true)
public class ControlWorker implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ControlWorker.class);

  private final WorkflowClient client;
  private final TemporalProperties properties;
  private WorkerFactory factory;
  private volatile boolean running;

  private final java.util.List<Object> activities;

  /** Every control activity implementation, collected by their configuration. */
  public record ControlActivities(java.util.List<Object> implementations) {}

  ControlWorker(WorkflowClient client, TemporalProperties properties, java.util.List<ControlActivities> activities) {
    this.client = client;
    this.activities = new java.util.ArrayList<>();
    activities.forEach(a -> this.activities.addAll(a.implementations()));
    this.properties = properties;
  }

  @Override
  public void start() {
    factory = WorkerFactory.newInstance(client,
        WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(properties.workflowCacheSize()).build());
    String identity = ManagementFactory.getRuntimeMXBean().getName() + "/control";
    Worker worker = factory.newWorker(TaskQueues.CONTROL, WorkerOptions.newBuilder()
        .setIdentity(identity)
        .setStickyQueueScheduleToStartTimeout(properties.stickyScheduleToStart())
        .build());
    ControlWorkflows.IMPLEMENTATIONS.forEach(worker::registerWorkflowImplementationTypes);
    activities.forEach(worker::registerActivitiesImplementations);
    factory.start();
    running = true;
    log.info("control worker {} polls {} on Temporal {} (namespace {})",
        identity, TaskQueues.CONTROL, properties.address(), properties.namespace());
  }

  @Override
  public void stop() {
    if (factory != null) {
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
