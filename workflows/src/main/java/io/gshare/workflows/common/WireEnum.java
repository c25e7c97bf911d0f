package io.gshare.workflows.common;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An enum that crosses a boundary (the API's JSON, a database column, a workflow's input) as one spelling per
 * constant, by default its lower-case name. The one parse of every such enum: each names its spellings once, here,
 * and a database CHECK constraint or the OpenAPI document lists the same (tests say so).
 */
public interface WireEnum {

  String name();

  /** The spelling on the wire and in the database: the lower-case name, unless the enum spells it otherwise. */
  default String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The constant spelled {@code value}; empty for any other value, null included. */
  static <E extends Enum<E> & WireEnum> Optional<E> parse(Class<E> type, String value) {
    return parseAny(type, value).map(type::cast);
  }

  /**
   * {@link #parse} for a class known only at run time to be a wire enum (a JSON mapper's or a schema generator's
   * view of a type).
   *
   * @throws IllegalArgumentException when {@code type} is not an enum implementing this interface
   */
  static Optional<WireEnum> parseAny(Class<?> type, String value) {
    return constantsOf(type).stream().filter(e -> e.wireName().equals(value)).findFirst();
  }

  /** Every spelling of {@code type} (an enum implementing this interface), in declaration order. */
  static List<String> spellings(Class<?> type) {
    return constantsOf(type).stream().map(WireEnum::wireName).toList();
  }

  /**
   * The constant spelled {@code value}.
   *
   * @param what what a value of the enum is, for the message ("session state")
   * @throws IllegalArgumentException naming the value and every spelling
   */
  static <E extends Enum<E> & WireEnum> E require(Class<E> type, String value, String what) {
    return parse(type, value).orElseThrow(() -> new IllegalArgumentException(
        "unknown " + what + " '" + value + "' (" + wireNames(type) + ")"));
  }

  /** {@code value}'s spelling, or null for null: what a nullable column or member stores. */
  static String wireNameOrNull(WireEnum value) {
    return value == null ? null : value.wireName();
  }

  /** Every spelling in declaration order, comma-separated: what a refusal lists. */
  static <E extends Enum<E> & WireEnum> String wireNames(Class<E> type) {
    return String.join(", ", spellings(type));
  }

  private static List<WireEnum> constantsOf(Class<?> type) {
    if (!type.isEnum() || !WireEnum.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(type.getName() + " is not an enum implementing WireEnum");
    }
    return Arrays.stream(type.getEnumConstants()).map(WireEnum.class::cast).toList();
  }
}
