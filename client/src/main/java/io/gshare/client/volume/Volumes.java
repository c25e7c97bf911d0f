package io.gshare.client.volume;

import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;

/** {@code /api/v1/volumes} and {@code /api/v1/storage/pools}: quota'd volumes and the pools they live in. */
public final class Volumes {

  private final GshareClient api;

  public Volumes(GshareClient api) {
    this.api = api;
  }

  public Volume create(Volume.NewVolume volume) {
    return api.post(ApiPaths.VOLUMES, volume, Volume.class);
  }

  public Volume get(String id) {
    return api.get(ApiPaths.volume(id), Volume.class);
  }

  public Volume.VolumeList list() {
    return api.get(ApiPaths.VOLUMES, Volume.VolumeList.class);
  }

  public StoragePool createPool(StoragePool.NewPool pool) {
    return api.post(ApiPaths.STORAGE_POOLS, pool, StoragePool.class);
  }

  public StoragePool pool(String id) {
    return api.get(ApiPaths.storagePool(id), StoragePool.class);
  }
}
