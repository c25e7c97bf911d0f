package io.gshare.workflows.common;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where a long operation stands ({@code operations.status}, the API's operation {@code status}). Spelled in every
 * JSON as its wire name, Temporal's payloads included: it replaced a string, and recorded histories and the stored
 * steps hold {@code "running"}, not {@code "RUNNING"}.
 */
public enum OperationStatus implements WireEnum {
  RUNNING,
  COMPLETED,
  FAILED;

  @JsonValue
  @Override
  public String wireName() {
    return WireEnum.super.wireName();
  }

  /** @throws IllegalArgumentException for a value that is not an operation status */
  @JsonCreator
  public static OperationStatus fromWire(String value) {
    return WireEnum.require(OperationStatus.class, value, "operation status");
  }
}
