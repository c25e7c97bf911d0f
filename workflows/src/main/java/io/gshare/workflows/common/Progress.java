package io.gshare.workflows.common;

import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps of an operation, kept inside its workflow: every step is listed up front so a query
 * shows what is done, what runs now and what comes next. Uses workflow time only.
 */
public final class Progress {

  private final String operationId;
  private final String kind;
  private final String objectId;
  private final List<OperationStep> steps = new ArrayList<>();
  private OperationStatus status = OperationStatus.RUNNING;
  private String error;

  public Progress(String operationId, String kind, String objectId, List<String> stepNames) {
    this.operationId = operationId;
    this.kind = kind;
    this.objectId = objectId;
    stepNames.forEach(name -> steps.add(new OperationStep(name, StepStatus.PENDING, null, 0, 0)));
  }

  /** Lists one more step, pending; for operations whose steps are known only once they run (one per cluster). */
  public void add(String name) {
    steps.add(new OperationStep(name, StepStatus.PENDING, null, 0, 0));
  }

  public void start(String name) {
    replace(name, StepStatus.RUNNING, null, Workflow.currentTimeMillis(), 0);
  }

  public void done(String name, String detail) {
    OperationStep step = find(name);
    replace(name, StepStatus.DONE, detail, step.startedAt() == 0 ? Workflow.currentTimeMillis() : step.startedAt(),
        Workflow.currentTimeMillis());
  }

  /** Marks the step that runs now failed and the operation failed with {@code why}. */
  public void fail(String why) {
    for (OperationStep step : steps) {
      if (step.status() == StepStatus.RUNNING) {
        replace(step.name(), StepStatus.FAILED, why, step.startedAt(), Workflow.currentTimeMillis());
      }
    }
    status = OperationStatus.FAILED;
    error = why;
  }

  /**
   * Marks one step failed with {@code why}; the operation goes on (its other steps are independent: one
   * cluster's trouble is not the others').
   */
  public void failStep(String name, String why) {
    OperationStep step = find(name);
    replace(name, StepStatus.FAILED, why, step.startedAt() == 0 ? Workflow.currentTimeMillis() : step.startedAt(),
        Workflow.currentTimeMillis());
  }

  public void complete() {
    status = OperationStatus.COMPLETED;
  }

  public OperationProgress snapshot() {
    return new OperationProgress(operationId, kind, objectId, status, steps, error);
  }

  private OperationStep find(String name) {
    return steps.stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no step " + name));
  }

  private void replace(String name, StepStatus newStatus, String detail, long startedAt, long endedAt) {
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i).name().equals(name)) {
        steps.set(i, new OperationStep(name, newStatus, detail, startedAt, endedAt));
        return;
      }
    }
    throw new IllegalArgumentException("no step " + name);
  }
}
