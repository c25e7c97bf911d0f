package io.gshare.client.system;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;

/** {@code GET /api/v1/system}: the platform's version, Temporal namespace, task queues and their pollers. */
public final class SystemInfo {

  private final GshareClient api;

  public SystemInfo(GshareClient api) {
    this.api = api;
  }

  public JsonNode get() {
    return api.get(ApiPaths.SYSTEM);
  }
}
