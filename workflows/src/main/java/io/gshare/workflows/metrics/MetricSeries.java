package io.gshare.workflows.metrics;

import java.util.List;
import java.util.Map;

/**
 * One series of a range query's answer.
 *
 * @param labels the series' labels (without {@code __name__})
 * @param points its samples in time order
 */
public record MetricSeries(Map<String, String> labels, List<Point> points) {

  public MetricSeries {
    labels = Map.copyOf(labels);
    points = List.copyOf(points);
  }

  /**
   * @param t seconds since the epoch
   * @param v the value; null where Prometheus had NaN or an infinity (JSON has neither)
   */
  public record Point(long t, Double v) {}
}
