package io.gshare.clusterworker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.UsageAnswer;
import io.gshare.contract.internal.UsageReport;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.PodPhase;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every tick, the GPU activity of every running session of the cluster, for the control plane's idle reaper.
 * Where it reads the activity, the control plane says in the answer to each report (the cluster's
 * {@code prometheus_url}, which takes priority, or its {@code hami_monitor_url}); the first tick and a
 * cluster with neither report nothing. Prometheus is asked through its query API for HAMi's per-container
 * series of the session pods (matched by pod name) and, for pods it has none of, for
 * {@code max_over_time(DCGM_FI_DEV_GPU_UTIL[1m])}, the GPUs matched to sessions by the uuids of the pods'
 * {@code nvidia.com/use-gpuuuid}; the HAMi monitor's text is scraped and matched by pod name.
 */
final class UsageReporter {

  private static final Logger log = LoggerFactory.getLogger(UsageReporter.class);
  static final String DCGM_QUERY = "max_over_time(DCGM_FI_DEV_GPU_UTIL[1m])";
  /** The cards whose last Xid is an error: the gauge holds the last code until the driver is reset. */
  static final String XID_QUERY = "max by (UUID) (DCGM_FI_DEV_XID_ERRORS)";
  static final String HAMI_UTIL_QUERY =
      "max_over_time(hami_container_device_utilization_ratio{namespace=\"" + SessionObjects.NAMESPACE + "\"}[1m])";
  static final String HAMI_KERNEL_QUERY =
      "min_over_time(hami_container_last_kernel_elapsed_seconds{namespace=\"" + SessionObjects.NAMESPACE + "\"}[1m])";
  /** What {@link #fromHami} reads of the monitor's text. */
  private static final Set<String> HAMI_SERIES =
      Set.of("hami_container_device_utilization_ratio", "hami_container_last_kernel_elapsed_seconds");

  private final KubernetesClient kubernetes;
  private final ControlPlaneClient controlPlane;
  private final Clock clock;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();
  private volatile UsageAnswer sources = new UsageAnswer(0, null, null);

  UsageReporter(KubernetesClient kubernetes, ControlPlaneClient controlPlane, Clock clock) {
    this.kubernetes = kubernetes;
    this.controlPlane = controlPlane;
    this.clock = clock;
  }

  void tick() throws Exception {
    List<UsageReport.Sample> samples;
    try {
      samples = measure(runningSessionPods());
    } catch (IOException e) {
      // A source that does not answer is no measurement (the reaper then counts nobody idle); the report still
      // goes, so a corrected URL is learned at this very tick.
      log.warn("could not read GPU activity: {}", e.getMessage());
      samples = List.of();
    }
    List<UsageReport.Xid> xids = List.of();
    if (sources.prometheusUrl() != null) {
      try {
        xids = xids(sources.prometheusUrl());
      } catch (IOException e) {
        log.warn("could not read the cards' Xid errors: {}", e.getMessage());
      }
    }
    sources = controlPlane.exchange(InternalPaths.USAGE, new UsageReport(samples, xids), UsageAnswer.class);
  }

  /** What the current sources say about these pods; empty when no source is set. */
  List<UsageReport.Sample> measure(List<Pod> pods) throws IOException, InterruptedException {
    UsageAnswer now = sources;
    if (now.prometheusUrl() != null) {
      return fromPrometheus(now.prometheusUrl(), pods);
    }
    if (now.hamiMonitorUrl() != null) {
      return fromHami(now.hamiMonitorUrl(), pods);
    }
    return List.of();
  }

  void useSources(String prometheusUrl, String hamiMonitorUrl) {
    sources = new UsageAnswer(0, prometheusUrl, hamiMonitorUrl);
  }

  private List<Pod> runningSessionPods() {
    return kubernetes.pods().inNamespace(SessionObjects.NAMESPACE).withLabel(LabelKeys.SESSION_ID).list().getItems()
        .stream().filter(p -> p.getStatus() != null && PodPhase.of(p.getStatus().getPhase()) == PodPhase.RUNNING
            && p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  /**
   * Per session pod, HAMi's per-container series where Prometheus has them (they are the right signal for a
   * slice of a shared card: the card's own utilization counts the other slices' work too), else the card's
   * {@code DCGM_FI_DEV_GPU_UTIL} by the UUIDs the pod was given.
   */
  List<UsageReport.Sample> fromPrometheus(String baseUrl, List<Pod> pods) throws IOException, InterruptedException {
    if (pods.isEmpty()) {
      return List.of();
    }
    Instant sampledAt = clock.instant();
    Map<String, String> sessionOfPod = new HashMap<>();
    pods.forEach(p -> sessionOfPod.put(p.getMetadata().getName(), p.getMetadata().getLabels().get(LabelKeys.SESSION_ID)));
    record Key(String session, String uuid) {}
    Map<Key, double[]> hami = new LinkedHashMap<>(); // {util %, seconds since last kernel}
    for (JsonNode series : query(baseUrl, HAMI_UTIL_QUERY)) {
      String session = sessionOfPod.get(series.path("metric").path("pod").asText(""));
      if (session != null && series.path("value").size() >= 2) {
        hami.computeIfAbsent(new Key(session, series.path("metric").path("device_uuid").asText(null)),
            k -> new double[] {0, Double.MAX_VALUE})[0] = percent(series, 100);
      }
    }
    if (!hami.isEmpty()) {
      for (JsonNode series : query(baseUrl, HAMI_KERNEL_QUERY)) {
        double[] v = hami.get(new Key(sessionOfPod.get(series.path("metric").path("pod").asText("")),
            series.path("metric").path("device_uuid").asText(null)));
        if (v != null && series.path("value").size() >= 2) {
          v[1] = Double.parseDouble(series.path("value").get(1).asText());
        }
      }
    }
    List<UsageReport.Sample> samples = new ArrayList<>();
    hami.forEach((k, v) -> samples.add(new UsageReport.Sample(k.session(), k.uuid(), v[0], null, sampledAt,
        v[1] == Double.MAX_VALUE ? null : sampledAt.minusMillis((long) (v[1] * 1000)), "hami")));
    Set<String> measured = new HashSet<>();
    hami.keySet().forEach(k -> measured.add(k.session()));

    Map<String, String> sessionOfGpu = new HashMap<>();
    for (Pod pod : pods) {
      String session = pod.getMetadata().getLabels().get(LabelKeys.SESSION_ID);
      String uuids = annotation(pod, Annotations.HAMI_USE_GPU_UUID);
      if (uuids != null && !measured.contains(session)) {
        for (String uuid : uuids.split(",")) {
          if (!uuid.isBlank()) {
            sessionOfGpu.put(uuid.trim(), session);
          }
        }
      }
    }
    if (sessionOfGpu.isEmpty()) {
      return samples;
    }
    for (JsonNode series : query(baseUrl, DCGM_QUERY)) {
      String uuid = series.path("metric").path("UUID").asText(null);
      String session = uuid == null ? null : sessionOfGpu.get(uuid);
      if (session != null && series.path("value").size() >= 2) {
        samples.add(new UsageReport.Sample(session, uuid, percent(series, 1), null, sampledAt, null, "dcgm"));
      }
    }
    return samples;
  }

  /**
   * Every card's last Xid ({@code DCGM_FI_DEV_XID_ERRORS}, by its UUID), 0 included: the gauge holds a code until
   * the driver reloads, so the control plane acts on a change of it and a 0 tells it the card was cleared. Which
   * codes are fatal is the control plane's call. Reported every tick, so a lost report repeats.
   */
  List<UsageReport.Xid> xids(String baseUrl) throws IOException, InterruptedException {
    Instant observedAt = clock.instant();
    Map<String, UsageReport.Xid> byUuid = new LinkedHashMap<>();
    for (JsonNode series : query(baseUrl, XID_QUERY)) {
      String uuid = series.path("metric").path("UUID").asText(null);
      if (uuid != null && series.path("value").size() >= 2) {
        int code = (int) Double.parseDouble(series.path("value").get(1).asText());
        if (code >= 0) {
          byUuid.put(uuid, new UsageReport.Xid(uuid, code, observedAt));
        }
      }
    }
    return List.copyOf(byUuid.values());
  }

  /** An instant vector from Prometheus's query API ({@code GET /api/v1/query}). */
  private JsonNode query(String baseUrl, String promql) throws IOException, InterruptedException {
    URI uri = URI.create(baseUrl + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode body;
    try {
      body = json.readTree(answer.body());
    } catch (IOException notJson) {
      throw new IOException("Prometheus at " + baseUrl + " answered " + answer.statusCode() + " with no JSON");
    }
    if (answer.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
      throw new IOException("Prometheus at " + baseUrl + " answered " + answer.statusCode() + ": "
          + body.path("error").asText(answer.body()));
    }
    return body.path("data").path("result");
  }

  /** A series' value as a percentage: {@code scale} 100 for a ratio, 1 for a percentage. */
  private static double percent(JsonNode series, double scale) {
    return Math.max(0, Math.min(100, Double.parseDouble(series.path("value").get(1).asText()) * scale));
  }

  List<UsageReport.Sample> fromHami(String baseUrl, List<Pod> pods) throws IOException, InterruptedException {
    Map<String, String> sessionOfPod = new HashMap<>();
    pods.forEach(p -> sessionOfPod.put(p.getMetadata().getName(), p.getMetadata().getLabels().get(LabelKeys.SESSION_ID)));
    if (sessionOfPod.isEmpty()) {
      return List.of();
    }
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(baseUrl + (baseUrl.endsWith("/metrics") ? ""
        : "/metrics"))).timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IOException("the HAMi monitor at " + baseUrl + " answered " + answer.statusCode());
    }
    Instant sampledAt = clock.instant();
    record Key(String session, String uuid) {}
    Map<Key, double[]> byDevice = new LinkedHashMap<>(); // {util %, seconds since last kernel}
    for (PromText.Series series : PromText.parse(answer.body(), HAMI_SERIES)) {
      boolean util = series.metric().equals("hami_container_device_utilization_ratio");
      if (!SessionObjects.NAMESPACE.equals(series.label("namespace")) || !sessionOfPod.containsKey(series.label("pod"))
          || Double.isNaN(series.value())) {
        continue;
      }
      double value = series.value();
      double[] v = byDevice.computeIfAbsent(new Key(sessionOfPod.get(series.label("pod")), series.label("device_uuid")),
          k -> new double[] {0, Double.MAX_VALUE});
      if (util) {
        v[0] = Math.max(v[0], Math.min(100, value * 100));
      } else {
        v[1] = Math.min(v[1], value);
      }
    }
    List<UsageReport.Sample> samples = new ArrayList<>();
    byDevice.forEach((k, v) -> samples.add(new UsageReport.Sample(k.session(), k.uuid(), v[0], null, sampledAt,
        v[1] == Double.MAX_VALUE ? null : sampledAt.minusMillis((long) (v[1] * 1000)), "hami")));
    return samples;
  }

  private static String annotation(Pod pod, String key) {
    return pod.getMetadata().getAnnotations() == null ? null : pod.getMetadata().getAnnotations().get(key);
  }
}
