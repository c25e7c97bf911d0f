package io.gshare.activities.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.metrics.MetricQueryActivities;
import io.gshare.workflows.metrics.MetricSeries;
import io.gshare.workflows.metrics.PrometheusRangeQuery;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a range query against the cluster's Prometheus ({@code GET /api/v1/query_range}) from inside the cluster.
 * Bounded: 10 s, {@value #MAX_BYTES} bytes of answer, {@link MetricQueryActivities#MAX_SERIES} series.
 */
public class MetricQueryActivitiesImpl implements MetricQueryActivities {

  static final int MAX_BYTES = 8 * 1024 * 1024;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @Override
  public List<MetricSeries> queryRange(PrometheusRangeQuery q) {
    String base = q.prometheusUrl().replaceAll("/+$", "");
    URI uri = URI.create(base + "/api/v1/query_range?query=" + URLEncoder.encode(q.promql(), StandardCharsets.UTF_8)
        + "&start=" + q.start() + "&end=" + q.end() + "&step=" + q.step());
    HttpResponse<InputStream> answer;
    byte[] body;
    try {
      answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
          HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = answer.body()) {
        body = in.readNBytes(MAX_BYTES + 1);
      }
    } catch (IOException e) {
      // retried once by the workflow: Prometheus restarting, a network blip
      throw ApplicationFailure.newFailure("Prometheus at " + base + " did not answer: " + e.getMessage(),
          "prometheus_unreachable");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted", "prometheus_unreachable");
    }
    if (body.length > MAX_BYTES) {
      throw refused("the answer is larger than " + MAX_BYTES / (1024 * 1024) + " MiB: ask for a shorter range or a larger step");
    }
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (IOException e) {
      throw ApplicationFailure.newFailure("Prometheus at " + base + " answered " + answer.statusCode() + " without JSON",
          "prometheus_unreachable");
    }
    if (answer.statusCode() != 200 || !"success".equals(root.path("status").asText())) {
      String error = root.path("error").asText("HTTP " + answer.statusCode());
      if (answer.statusCode() / 100 == 4) {
        throw refused("Prometheus refused the query: " + error);
      }
      throw ApplicationFailure.newFailure("Prometheus at " + base + " answered " + answer.statusCode() + ": " + error,
          "prometheus_unreachable");
    }
    JsonNode result = root.path("data").path("result");
    if (result.size() > MAX_SERIES) {
      throw refused("the answer has " + result.size() + " series, more than " + MAX_SERIES + ": ask about less");
    }
    List<MetricSeries> series = new ArrayList<>();
    for (JsonNode s : result) {
      Map<String, String> labels = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = s.path("metric").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> label = it.next();
        if (!label.getKey().equals("__name__")) {
          labels.put(label.getKey(), label.getValue().asText());
        }
      }
      List<MetricSeries.Point> points = new ArrayList<>();
      for (JsonNode p : s.path("values")) {
        double v = parse(p.get(1).asText());
        points.add(new MetricSeries.Point((long) p.get(0).asDouble(), Double.isFinite(v) ? v : null));
      }
      series.add(new MetricSeries(labels, points));
    }
    return series;
  }

  private static double parse(String value) {
    try {
      return Double.parseDouble(value.replace("+Inf", "Infinity").replace("-Inf", "-Infinity"));
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static ApplicationFailure refused(String why) {
    return ApplicationFailure.newNonRetryableFailure(why, FailureTypes.METRIC_QUERY_REFUSED);
  }
}
