package io.gshare.workflows.common;

import java.util.List;

/**
 * Where a long operation stands: answered by the workflow's {@code progress} query while it runs and
 * stored in Postgres when it ends (the embedded dev server forgets finished executions).
 *
 * @param status {@code running}, {@code completed} or {@code failed}
 * @param error why it failed, in words an operator can act on; null otherwise
 */
public record OperationProgress(String operationId, String kind, String objectId, String status,
    List<OperationStep> steps, String error) {

  public static final String RUNNING = "running";
  public static final String COMPLETED = "completed";
  public static final String FAILED = "failed";

  public OperationProgress {
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /** The step under way, or the first one not started; null when none is left. */
  public String nextStep() {
    return steps.stream()
        .filter(s -> OperationStep.RUNNING.equals(s.status()) || OperationStep.PENDING.equals(s.status()))
        .map(OperationStep::name)
        .findFirst()
        .orElse(null);
  }
}
