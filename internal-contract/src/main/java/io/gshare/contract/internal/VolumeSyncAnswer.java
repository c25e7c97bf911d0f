package io.gshare.contract.internal;

import java.util.List;

/**
 * What the worker must apply after a volume sync, so it needs no other endpoint: claims to resize
 * (approved expansions) and claims to delete (volumes reclaimed while the cluster could not be reached).
 */
@WireJson
public record VolumeSyncAnswer(List<ClaimResize> resize, List<String> deleteClaims) {

  public VolumeSyncAnswer {
    resize = resize == null ? List.of() : List.copyOf(resize);
    deleteClaims = deleteClaims == null ? List.of() : List.copyOf(deleteClaims);
  }

  /** Raise the claim's {@code spec.resources.requests.storage} to {@code sizeGb} GiB. */
  @WireJson
  public record ClaimResize(String pvcName, int sizeGb) {}
}
