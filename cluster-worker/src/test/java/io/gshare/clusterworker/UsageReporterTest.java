package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.contract.internal.UsageReport;
import io.gshare.sim.SimObjects;
import io.gshare.sim.kube.KubeCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.assertj.core.api.Assertions;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker's activity measurement against the simulated HAMi monitor of a real cluster (the module's shared
 * {@link KubeCluster}: its session pods on the seed's node sim-a100-0) and a Prometheus query API.
 */
class UsageReporterTest {

  private static KubeCluster cluster;
  private static KubernetesClient client;

  @BeforeAll
  static void start() {
    cluster = SharedKubeCluster.get();
    client = cluster.newClient();
  }

  @AfterAll
  static void stop() {
    client.pods().inNamespace("gshare-sessions").withLabel("gshare.io/session-id").list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith("sess-")).forEach(p -> client.resource(p).withGracePeriod(0).delete());
    client.close();
  }

  @Test
  void samplesGoOverTheWireWithTheirInstantsAsTheApiReadsThem() throws Exception {
    UsageReport report = new UsageReport(List.of(new UsageReport.Sample("s-1", "GPU-1", 0.0, null,
        Instant.parse("2026-12-03T10:00:00Z"), Instant.parse("2026-12-03T09:50:00Z"), "hami")));
    String text = ControlPlaneClient.JSON.writeValueAsString(report);
    assertThat(text).contains("\"sampled_at\":\"2026-12-03T10:00:00Z\"", "\"last_kernel_at\":\"2026-12-03T09:50:00Z\"");
    assertThat(ControlPlaneClient.JSON.readValue(text, UsageReport.class)).isEqualTo(report);
  }

  @Test
  void noSourceMeasuresNothing() throws Exception {
    UsageReporter reporter = new UsageReporter(client, null, Clock.systemUTC());
    assertThat(reporter.measure(List.of(sessionPod("s-none", "pod-none", "GPU-x")))).isEmpty();
  }

  @Test
  void readsTheHamiMonitorBySessionPod() throws Exception {
    String busy = SimObjects.gpuUuid(SharedKubeCluster.NAME, "sim-a100-0", 0);
    String idle = SimObjects.gpuUuid(SharedKubeCluster.NAME, "sim-a100-0", 1);
    SharedKubeCluster.ensureNamespace(client, "gshare-sessions");
    Pod a = client.pods().inNamespace("gshare-sessions").resource(sessionPod("s-busy", "sess-busy", busy)).create();
    Pod b = client.pods().inNamespace("gshare-sessions").resource(sessionPod("s-idle", "sess-idle", idle)).create();
    assertThat(cluster.setGpuMetrics(busy, 40, 0)).isTrue();
    // The monitor serves a pod's series once it runs.
    await().atMost(Duration.ofSeconds(30)).until(() -> List.of("sess-busy", "sess-idle").stream().allMatch(name -> {
      Pod pod = client.pods().inNamespace("gshare-sessions").withName(name).get();
      return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
    }));

    UsageReporter reporter = new UsageReporter(client, null, Clock.systemUTC());
    reporter.useSources(null, cluster.hamiMonitorUrl());
    List<UsageReport.Sample> samples = reporter.measure(List.of(a, b));

    assertThat(samples).extracting(UsageReport.Sample::sessionId).containsExactlyInAnyOrder("s-busy", "s-idle");
    UsageReport.Sample busySample = samples.stream().filter(s -> s.sessionId().equals("s-busy")).findFirst().orElseThrow();
    assertThat(busySample.gpuUtilPercent()).isEqualTo(40.0);
    assertThat(busySample.source()).isEqualTo("hami");
    assertThat(busySample.gpuUuid()).isEqualTo(busy);
    assertThat(busySample.lastKernelAt()).isNotNull();
    assertThat(samples.stream().filter(s -> s.sessionId().equals("s-idle")).findFirst().orElseThrow().gpuUtilPercent())
        .isZero();
  }

  @Test
  void asksPrometheusForHamisPerContainerSeriesFirstAndDcgmByUuidForTheRest() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    HttpServer prometheus = fakePrometheus(asked, 200, query -> success(query.equals(UsageReporter.DCGM_QUERY) ? """
              {"metric":{"UUID":"GPU-aaa","gpu":"0","Hostname":"n1"},"value":[1700000000.1,"73"]},
              {"metric":{"UUID":"GPU-shared","gpu":"1","Hostname":"n1"},"value":[1700000000.1,"90"]},
              {"metric":{"UUID":"GPU-other","gpu":"2","Hostname":"n1"},"value":[1700000000.1,"5"]}"""
              : query.equals(UsageReporter.HAMI_UTIL_QUERY) ? """
              {"metric":{"namespace":"gshare-sessions","pod":"sess-slice","device_uuid":"GPU-shared"},"value":[1700000000.1,"0"]}"""
              : query.equals(UsageReporter.HAMI_KERNEL_QUERY) ? """
              {"metric":{"namespace":"gshare-sessions","pod":"sess-slice","device_uuid":"GPU-shared"},"value":[1700000000.1,"600"]}"""
              : ""));
    try {
      UsageReporter reporter = new UsageReporter(client, null, Clock.systemUTC());
      reporter.useSources("http://127.0.0.1:" + prometheus.getAddress().getPort(), "http://127.0.0.1:1/unused");
      List<UsageReport.Sample> samples = reporter.measure(List.of(sessionPod("s-1", "sess-1", "GPU-aaa"),
          sessionPod("s-slice", "sess-slice", "GPU-shared")));
      assertThat(asked).containsExactly(UsageReporter.HAMI_UTIL_QUERY, UsageReporter.HAMI_KERNEL_QUERY,
          UsageReporter.DCGM_QUERY);
      assertThat(samples).hasSize(2);
      assertThat(samples).filteredOn(s -> s.sessionId().equals("s-1")).singleElement().satisfies(s -> {
        assertThat(s.gpuUuid()).isEqualTo("GPU-aaa");
        assertThat(s.gpuUtilPercent()).isEqualTo(73.0);
        assertThat(s.source()).isEqualTo("dcgm");
      });
      // The slice is idle although its card is busy with another slice's work: HAMi's series say so.
      assertThat(samples).filteredOn(s -> s.sessionId().equals("s-slice")).singleElement().satisfies(s -> {
        assertThat(s.gpuUtilPercent()).isZero();
        assertThat(s.source()).isEqualTo("hami");
        assertThat(s.lastKernelAt()).isBefore(s.sampledAt().minusSeconds(599));
      });
    } finally {
      prometheus.stop(0);
    }
  }

  @Test
  void readsEveryCardsLastXidByUuidClearedOnesIncluded() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    HttpServer prometheus = fakePrometheus(asked, 200, query -> success("""
        {"metric":{"UUID":"GPU-aaa"},"value":[1700000000.1,"48"]},
        {"metric":{"UUID":"GPU-bbb"},"value":[1700000000.1,"79"]},
        {"metric":{"UUID":"GPU-ccc"},"value":[1700000000.1,"0"]},
        {"metric":{},"value":[1700000000.1,"13"]}"""));
    try {
      UsageReporter reporter = new UsageReporter(client, null, Clock.systemUTC());
      List<UsageReport.Xid> xids = reporter.xids("http://127.0.0.1:" + prometheus.getAddress().getPort());
      assertThat(asked).containsExactly(UsageReporter.XID_QUERY);
      assertThat(xids).extracting(UsageReport.Xid::gpuUuid, UsageReport.Xid::code)
          .containsExactly(Tuple.tuple("GPU-aaa", 48), Tuple.tuple("GPU-bbb", 79),
              Tuple.tuple("GPU-ccc", 0));
    } finally {
      prometheus.stop(0);
    }
  }

  @Test
  void aPrometheusErrorIsAnErrorNotAnIdleSession() throws Exception {
    HttpServer prometheus = fakePrometheus(new ArrayList<>(), 400,
        query -> "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}");
    try {
      UsageReporter reporter = new UsageReporter(client, null, Clock.systemUTC());
      reporter.useSources("http://127.0.0.1:" + prometheus.getAddress().getPort(), null);
      Assertions.assertThatThrownBy(() -> reporter.measure(List.of(sessionPod("s-1", "sess-1",
          "GPU-aaa")))).isInstanceOf(IOException.class).hasMessageContaining("parse error");
    } finally {
      prometheus.stop(0);
    }
  }

  private static Pod sessionPod(String sessionId, String name, String uuid) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("gshare-sessions")
        .addToLabels("gshare.io/session-id", sessionId).addToAnnotations("nvidia.com/use-gpuuuid", uuid).endMetadata()
        .withNewSpec().withNodeName("sim-a100-0").addNewContainer().withName("main").withImage("x").endContainer()
        .endSpec().build();
  }

  /** A started Prometheus query API answering {@code status} with the body {@code answer} gives each query; records the queries. */
  private static HttpServer fakePrometheus(List<String> asked, int status,
      UnaryOperator<String> answer) throws IOException {
    HttpServer prometheus = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    prometheus.createContext("/api/v1/query", exchange -> {
      String query = URLDecoder.decode(exchange.getRequestURI().getRawQuery().substring("query=".length()),
          StandardCharsets.UTF_8);
      asked.add(query);
      byte[] body = answer.apply(query).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    prometheus.start();
    return prometheus;
  }

  /** A successful instant-vector answer with these result entries. */
  private static String success(String result) {
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + result + "]}}";
  }
}
