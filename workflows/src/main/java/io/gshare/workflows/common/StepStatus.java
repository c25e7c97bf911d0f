package io.gshare.workflows.common;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where one step of a long operation stands. Spelled in every JSON as its wire name, Temporal's payloads included:
 * it replaced a string, and recorded histories and the stored steps hold {@code "done"}, not {@code "DONE"}.
 */
public enum StepStatus implements WireEnum {
  PENDING,
  RUNNING,
  DONE,
  FAILED;

  @JsonValue
  @Override
  public String wireName() {
    return WireEnum.super.wireName();
  }

  /** @throws IllegalArgumentException for a value that is not a step status */
  @JsonCreator
  public static StepStatus fromWire(String value) {
    return WireEnum.require(StepStatus.class, value, "step status");
  }
}
