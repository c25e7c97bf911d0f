package io.gshare.client.operation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/** {@code GET /api/v1/operations?object_kind=&object_id=}: every run on one object, newest first. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record OperationList(String objectKind, String objectId, List<Summary> items, String source) {

  public OperationList {
    items = items == null ? List.of() : List.copyOf(items);
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Summary(String id, String runId, String type, String status, Instant startedAt, Instant endedAt,
      String temporalUiUrl) {}
}
