package io.gshare.client.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.gshare.client.operation.Step;
import java.math.BigDecimal;
import java.util.List;

/**
 * {@code GET /api/v1/sessions/{id}}: the session, its GPUs, its cost so far, a warning (idle, max runtime), and the
 * steps of the command its workflow is carrying out.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SessionDetail(Session session, List<HeldGpu> gpus, BigDecimal costSoFar, String warning,
    Progress operation) {

  public SessionDetail {
    gpus = gpus == null ? List.of() : List.copyOf(gpus);
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record HeldGpu(String uuid, String hostname, Integer gpumemMib, Integer gpucoresPercent) {}

  /** The current command's steps, while the session's workflow runs. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Progress(String operationId, String kind, String objectId, String status, List<Step> steps,
      String error) {
    public Progress {
      steps = steps == null ? List.of() : List.copyOf(steps);
    }
  }
}
