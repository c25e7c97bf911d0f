package io.gshare.core.metrics;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The time range of a metric query: {@code start} and {@code end} as RFC 3339 instants (default: the last hour up to
 * now), {@code step} from a fixed set (default 1m), at most {@value #MAX_POINTS} points and {@link #MAX_RANGE} long.
 * Anything else is refused with 422, before anything is asked.
 */
public record MetricWindow(Instant start, Instant end, Duration step) {

  public static final int MAX_POINTS = 1_500;
  public static final Duration MAX_RANGE = Duration.ofDays(31);
  static final Map<String, Duration> STEPS = steps();

  private static Map<String, Duration> steps() {
    Map<String, Duration> steps = new LinkedHashMap<>();
    steps.put("15s", Duration.ofSeconds(15));
    steps.put("30s", Duration.ofSeconds(30));
    steps.put("1m", Duration.ofMinutes(1));
    steps.put("5m", Duration.ofMinutes(5));
    steps.put("15m", Duration.ofMinutes(15));
    steps.put("1h", Duration.ofHours(1));
    return steps;
  }

  public static MetricWindow parse(String start, String end, String step, Instant now) {
    Duration stepLength = step == null ? Duration.ofMinutes(1) : STEPS.get(step);
    if (stepLength == null) {
      throw invalid("step must be one of " + String.join(", ", STEPS.keySet()));
    }
    Instant until = end == null ? now : instant("end", end);
    Instant from = start == null ? until.minus(Duration.ofHours(1)) : instant("start", start);
    if (!from.isBefore(until)) {
      throw invalid("start must be before end");
    }
    Duration range = Duration.between(from, until);
    if (range.compareTo(MAX_RANGE) > 0) {
      throw invalid("the range may be at most " + MAX_RANGE.toDays() + " days");
    }
    if (range.dividedBy(stepLength) > MAX_POINTS) {
      throw invalid("the range holds more than " + MAX_POINTS + " steps of " + (step == null ? "1m" : step)
          + ": ask for a larger step or a shorter range");
    }
    return new MetricWindow(from, until, stepLength);
  }

  private static Instant instant(String name, String value) {
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw invalid(name + " must be an RFC 3339 instant, e.g. 2026-12-03T10:00:00Z");
    }
  }

  private static GshareException invalid(String why) {
    return new GshareException(ProblemCode.VALIDATION_FAILED, why);
  }
}
