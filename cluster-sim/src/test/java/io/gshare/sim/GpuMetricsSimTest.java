package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The simulated DCGM exporter and HAMi vGPU monitor, and the control API that sets what they report. */
class GpuMetricsSimTest {

  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("metrics", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100)));
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void dcgmExporterReportsEveryGpuIdleUntilSetAndTheValuesSet() throws Exception {
    String uuid = SimObjects.gpuUuid("metrics", "sim-h100-0", 1);
    String before = get(SimulatedCluster.DCGM_METRICS_PATH).body();
    assertThat(before).contains("# TYPE DCGM_FI_DEV_GPU_UTIL gauge")
        .contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"" + uuid + "\"")
        .containsPattern("DCGM_FI_DEV_GPU_UTIL\\{[^}]*UUID=\"" + uuid + "\"[^}]*Hostname=\"sim-h100-0\"[^}]*} 0\n")
        .contains("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"" + uuid + "\"");

    assertThat(put("/sim/v1/gpus/" + uuid + "/metrics", "{\"util\": 87, \"xid\": 79}").statusCode()).isEqualTo(200);
    String after = get(SimulatedCluster.DCGM_METRICS_PATH).body();
    assertThat(after).containsPattern("DCGM_FI_DEV_GPU_UTIL\\{[^}]*UUID=\"" + uuid + "\"[^}]*} 87\n")
        .containsPattern("DCGM_FI_DEV_XID_ERRORS\\{[^}]*UUID=\"" + uuid + "\"[^}]*err_code=\"79\"} 79\n");
    assertThat(get("/sim/v1/gpus/" + uuid + "/metrics").body()).contains("\"util\":87.0");
  }

  @Test
  void controlApiRefusesUnknownGpusAndBadValues() throws Exception {
    assertThat(put("/sim/v1/gpus/GPU-nope/metrics", "{\"util\": 1}").statusCode()).isEqualTo(404);
    String uuid = SimObjects.gpuUuid("metrics", "sim-a100-0", 0);
    assertThat(put("/sim/v1/gpus/" + uuid + "/metrics", "{\"util\": 101}").statusCode()).isEqualTo(400);
    assertThat(put("/sim/v1/gpus/" + uuid + "/metrics", "{\"util\": \"busy\"}").statusCode()).isEqualTo(400);
    assertThat(put("/sim/v1/gpus/" + uuid + "/metrics", "not json").statusCode()).isEqualTo(400);
  }

  @Test
  void hamiMonitorReportsRunningPodsByContainerAndDevice() throws Exception {
    String uuid = SimObjects.gpuUuid("metrics", "sim-a100-0", 1);
    client.pods().inNamespace("default").resource(new PodBuilder()
        .withNewMetadata().withName("trainer").addToAnnotations("nvidia.com/use-gpuuuid", uuid).endMetadata()
        .withNewSpec().withNodeName("sim-a100-0").addNewContainer().withName("main").withImage("x").endContainer()
        .endSpec().build()).create();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(get(SimulatedCluster.HAMI_METRICS_PATH).body()).contains("pod=\"trainer\""));

    String labels = "{namespace=\"default\",pod=\"trainer\",container=\"main\",vdevice_index=\"0\",device_uuid=\""
        + uuid + "\"}";
    assertThat(get(SimulatedCluster.HAMI_METRICS_PATH).body())
        .contains("hami_container_device_utilization_ratio" + labels + " 0.0\n")
        .contains("hami_container_last_kernel_elapsed_seconds" + labels + " ");

    put("/sim/v1/gpus/" + uuid + "/metrics", "{\"util\": 50}");
    assertThat(get(SimulatedCluster.HAMI_METRICS_PATH).body())
        .contains("hami_container_device_utilization_ratio" + labels + " 0.5\n")
        .contains("hami_container_last_kernel_elapsed_seconds" + labels + " 0\n");

    put("/sim/v1/gpus/" + uuid + "/metrics", "{\"util\": 0}");
    Thread.sleep(1100);
    assertThat(get(SimulatedCluster.HAMI_METRICS_PATH).body())
        .containsPattern("hami_container_last_kernel_elapsed_seconds" + java.util.regex.Pattern.quote(labels) + " [1-9]");
  }

  @Test
  void droppedNodesExportNothing() throws Exception {
    String uuid = SimObjects.gpuUuid("metrics", "sim-h100-0", 0);
    http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/sim/v1/nodes/sim-h100-0/drop"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    try {
      assertThat(get(SimulatedCluster.DCGM_METRICS_PATH).body()).doesNotContain(uuid);
    } finally {
      http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/sim/v1/nodes/sim-h100-0/restore"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
    assertThat(get(SimulatedCluster.DCGM_METRICS_PATH).body()).contains(uuid);
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> put(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(cluster.url() + path))
        .PUT(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
