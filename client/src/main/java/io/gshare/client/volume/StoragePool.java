package io.gshare.client.volume;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A storage pool as {@code /api/v1/storage/pools} describes it.
 *
 * @param capacitySource csi (the cluster's CSIStorageCapacity), manual or none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StoragePool(String id, String name, String clusterId, String storageClass, String scope,
    String capacitySource, Integer manualCapacityGb, Boolean isDefault, Long totalGb, Long allocatedGb, Long freeGb) {

  /** {@code POST /api/v1/storage/pools}'s body; absent members take the API's defaults. */
  public record NewPool(String name, String clusterId, String storageClass, String scope, List<String> clusterIds,
      String capacitySource, Integer manualCapacityGb, Boolean isDefault) {}
}
