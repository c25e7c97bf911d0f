package io.gshare.client.operation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /api/v1/operations/{id}}: a long operation (a Temporal workflow) and its steps.
 *
 * @param status running, completed, failed, canceled, terminated or timed_out
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Operation(String id, String kind, String objectId, String status, List<Step> steps, String nextStep,
    String error, String source, Instant startedAt, Instant endedAt, String temporalUiUrl) {

  public static final String RUNNING = "running";
  public static final String COMPLETED = "completed";
  public static final String FAILED = "failed";

  public Operation {
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  public boolean running() {
    return RUNNING.equals(status);
  }
}
