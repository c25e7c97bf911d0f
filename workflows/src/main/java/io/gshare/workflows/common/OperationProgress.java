package io.gshare.workflows.common;

import java.util.List;

/**
 * Where a long operation stands: answered by the workflow's {@code progress} query while it runs and
 * stored in Postgres when it ends (the embedded dev server forgets finished executions).
 *
 * @param status running, completed or failed
 * @param error why it failed, in words an operator can act on; null otherwise
 */
public record OperationProgress(String operationId, String kind, String objectId, OperationStatus status,
    List<OperationStep> steps, String error) {

  public OperationProgress {
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /** The step under way, or the first one not started; null when none is left. */
  public String nextStep() {
    return steps.stream()
        .filter(s -> s.status() == StepStatus.RUNNING || s.status() == StepStatus.PENDING)
        .map(OperationStep::name)
        .findFirst()
        .orElse(null);
  }
}
