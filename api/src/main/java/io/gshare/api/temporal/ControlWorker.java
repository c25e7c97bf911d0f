package io.gshare.api.temporal;

import io.gshare.activities.control.ActivitiesOn;
import io.gshare.workflows.ControlWorkflows;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The control worker: every workflow and the control activities (the beans marked {@link ActivitiesOn} the control
 * queue), on {@link TaskQueues#CONTROL}. It starts after the rest of the context (so activities find their beans)
 * and stops before it.
 */
@Component
@ConditionalOnProperty(prefix = "gshare.worker", name = "enabled", havingValue = "true", matchIfMissing = true)
public class ControlWorker implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ControlWorker.class);

  private final WorkflowClient client;
  private final TemporalProperties properties;
  private WorkerFactory factory;
  private volatile boolean running;

  private final ListableBeanFactory beans;

  ControlWorker(WorkflowClient client, TemporalProperties properties, ListableBeanFactory beans) {
    this.client = client;
    this.properties = properties;
    this.beans = beans;
  }

  /**
   * Every bean whose class says it is served on the control queue ({@link ActivitiesOn}). One naming another queue
   * stops the start: this worker serves the control queue alone, and such an activity would never run.
   */
  static List<Object> controlActivities(ListableBeanFactory beans) {
    List<Object> control = new ArrayList<>();
    beans.getBeansWithAnnotation(ActivitiesOn.class).forEach((name, bean) -> {
      String queue = beans.findAnnotationOnBean(name, ActivitiesOn.class).taskQueue();
      if (!TaskQueues.CONTROL.equals(queue)) {
        throw new IllegalStateException("bean " + name + " (" + bean.getClass().getName() + ") says it is served on "
            + "task queue " + queue + ", which no worker in the api polls; the api's worker serves "
            + TaskQueues.CONTROL);
      }
      control.add(bean);
    });
    return control;
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
    List<Object> activities = controlActivities(beans);
    activities.forEach(worker::registerActivitiesImplementations);
    factory.start();
    running = true;
    log.info("control worker {} polls {} on Temporal {} (namespace {}) with {} activity implementations",
        identity, TaskQueues.CONTROL, properties.address(), properties.namespace(), activities.size());
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
