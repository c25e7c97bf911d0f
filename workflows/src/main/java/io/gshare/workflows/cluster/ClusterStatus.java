package io.gshare.workflows.cluster;

import java.util.Arrays;
import java.util.Locale;

/** A cluster's status; the wire and database value is the lower-case name ({@code clusters.status}'s CHECK). */
public enum ClusterStatus {
  PENDING, ATTACHING, CONNECTED, DEGRADED, UNREACHABLE, DETACHING, DETACHED, FAILED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws IllegalArgumentException for a value that is not a status */
  public static ClusterStatus fromWire(String value) {
    return Arrays.stream(values()).filter(s -> s.wireName().equals(value)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown cluster status '" + value + "'"));
  }
}
