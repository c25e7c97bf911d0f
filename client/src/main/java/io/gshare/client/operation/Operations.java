package io.gshare.client.operation;

import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;

/** {@code /api/v1/operations}: long operations (Temporal workflows) and their steps. */
public final class Operations {

  private final GshareClient api;

  public Operations(GshareClient api) {
    this.api = api;
  }

  public Operation get(String id) {
    return api.get(ApiPaths.operation(id), Operation.class);
  }

  /** Every run on one object ({@code session}, {@code cluster}, {@code node}, ...), newest first. */
  public OperationList on(String objectKind, String objectId) {
    return api.get(ApiPaths.query(ApiPaths.OPERATIONS, "object_kind", objectKind, "object_id", objectId),
        OperationList.class);
  }
}
