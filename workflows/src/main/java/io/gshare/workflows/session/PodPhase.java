package io.gshare.workflows.session;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.gshare.workflows.common.WireEnum;
import java.util.Locale;

/**
 * A pod's phase as Kubernetes spells it ({@code status.phase}). Spelled so in every JSON, Temporal's payloads
 * included: it replaced a string, and recorded histories hold {@code "Running"}.
 */
public enum PodPhase implements WireEnum {
  PENDING,
  RUNNING,
  SUCCEEDED,
  FAILED,
  UNKNOWN;

  @JsonValue
  @Override
  public String wireName() {
    String lower = name().toLowerCase(Locale.ROOT);
    return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
  }

  /** The pod's containers stopped for good: nothing will run in it again. */
  public boolean ended() {
    return this == SUCCEEDED || this == FAILED;
  }

  /**
   * The phase {@code value} names; null for null (a pod without a status yet) and {@link #UNKNOWN} for a spelling
   * this version does not know, as Kubernetes itself reads a phase it cannot tell.
   */
  @JsonCreator
  public static PodPhase of(String value) {
    return value == null ? null : WireEnum.parse(PodPhase.class, value).orElse(UNKNOWN);
  }
}
