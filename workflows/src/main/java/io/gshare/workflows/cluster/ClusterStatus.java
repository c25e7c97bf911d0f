package io.gshare.workflows.cluster;

import io.gshare.workflows.common.WireEnum;

/** A cluster's status; the wire and database value is the lower-case name ({@code clusters.status}'s CHECK). */
public enum ClusterStatus implements WireEnum {
  PENDING, ATTACHING, CONNECTED, DEGRADED, UNREACHABLE, DETACHING, DETACHED, FAILED;

  /** @throws IllegalArgumentException for a value that is not a status */
  public static ClusterStatus fromWire(String value) {
    return WireEnum.require(ClusterStatus.class, value, "cluster status");
  }
}
