package io.gshare.client.volume;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * A volume as {@code /api/v1/volumes} describes it.
 *
 * @param status creating, available, deleting (restorable until {@code reclaimAfter}), reclaimed, ...
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Volume(String id, String ownerId, String name, String poolId, Integer sizeGb, Integer requestedSizeGb,
    String status, Long usedBytes, Instant createdAt, Instant deletedAt, Instant reclaimAfter, Instant reclaimedAt) {

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record VolumeList(List<Volume> items) {
    public VolumeList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  /** {@code POST /api/v1/volumes}'s body; absent members take the API's defaults. */
  public record NewVolume(String name, Integer sizeGb, String poolId) {}

  /** {@code POST /api/v1/volumes/{id}/expansion}'s body. */
  public record ExpansionInput(Integer sizeGb) {}
}
