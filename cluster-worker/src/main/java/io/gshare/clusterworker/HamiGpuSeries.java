package io.gshare.clusterworker;

import io.gshare.activities.cluster.model.SessionObjects;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The session pods' GPU use as the node's HAMi vGPU monitor reports it, for the usage agent: its memory series summed
 * over the pod's containers and devices, its utilization ratio (0 to 1, as {@link UsageReporter} reads it and the
 * simulator serves it) as the busiest device's percentage. A scrape must fit in a tick, hence the short timeout.
 */
final class HamiGpuSeries {

  static final String MEMORY = "hami_vgpu_memory_used_bytes";
  static final String UTILIZATION = "hami_container_device_utilization_ratio";
  static final Duration TIMEOUT = Duration.ofMillis(800);

  /** A pod's GPU figures; either is null when the monitor has no such series for it. */
  record PodGpu(Long memoryBytes, Double utilPercent) {}

  private final URI url;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  HamiGpuSeries(URI url) {
    this.url = url;
  }

  URI url() {
    return url;
  }

  /** The monitor's figures by session pod name; throws when it does not answer 200 in time. */
  Map<String, PodGpu> scrape() throws IOException, InterruptedException {
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(url).timeout(TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IOException("the HAMi monitor at " + url + " answered " + answer.statusCode());
    }
    return read(answer.body());
  }

  /** The figures of the session namespace's pods in a scrape's text, by pod name. */
  static Map<String, PodGpu> read(String text) {
    Map<String, Long> memory = new HashMap<>();
    Map<String, Double> util = new HashMap<>();
    for (PromText.Series series : PromText.parse(text, Set.of(MEMORY, UTILIZATION))) {
      String pod = series.label("pod");
      if (pod == null || !SessionObjects.NAMESPACE.equals(series.label("namespace")) || !Double.isFinite(series.value())) {
        continue;
      }
      if (series.metric().equals(MEMORY)) {
        memory.merge(pod, Math.max(0, Math.round(series.value())), Long::sum);
      } else {
        util.merge(pod, Math.max(0, Math.min(100, series.value() * 100)), Math::max);
      }
    }
    Map<String, PodGpu> byPod = new HashMap<>();
    memory.keySet().forEach(pod -> byPod.put(pod, new PodGpu(memory.get(pod), util.get(pod))));
    util.keySet().forEach(pod -> byPod.putIfAbsent(pod, new PodGpu(null, util.get(pod))));
    return byPod;
  }
}
