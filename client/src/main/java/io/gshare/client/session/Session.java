package io.gshare.client.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Locale;

/** A session as {@code /api/v1/sessions} describes it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Session(String id, String userId, String name, String state, String stateReason, String clusterId,
    String clusterName, String nodeId, String nodeHostname, String gpuModel, String mode, BigDecimal pricePerHour,
    String imageReference, String volumeId, String pauseKind, String url, String podPhase, Instant createdAt,
    Instant startedAt, Instant endedAt) {

  /** The states a session can be in (the API's wire values). */
  public enum State {
    PENDING, CREATING, RUNNING, PAUSING, PAUSED, RESUMING, TERMINATING, TERMINATED, FAILED;

    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static State of(String wire) {
      return valueOf(wire.toUpperCase(Locale.ROOT));
    }

    /** No command moves it any more. */
    public boolean ended() {
      return this == TERMINATED || this == FAILED;
    }
  }

  public State stateValue() {
    return State.of(state);
  }
}
