package io.gshare.dev.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.dev.DevRuntime;
import io.gshare.dev.DevRuntimeOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Benchmark, not a test: drives the dev runtime (real api and cluster-worker processes, embedded
 * PostgreSQL and Temporal, a simulated cluster) with N users each running M session lifecycles —
 * create, wait until Running, pause, resume, terminate — and prints create→pod latency (API accept to
 * the pod object existing: the control plane's part), create→Running, lifecycles per second, Temporal
 * history events per lifecycle, and the ratio of a lifecycle's time to the raw minimum: the same
 * Kubernetes calls and database writes made directly, one after another.
 *
 * <p>Run: {@code make bench-sessions} (or {@code ... SessionBench users lifecyclesPerUser}).
 */
public final class SessionBench {

  private SessionBench() {}

  public static void main(String[] args) {
    try {
      run(args.length > 0 ? Integer.parseInt(args[0]) : 8, args.length > 1 ? Integer.parseInt(args[1]) : 3);
      System.exit(0);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  static void run(int users, int perUser) throws Exception {
    ObjectMapper json = new ObjectMapper();
    HttpClient http = HttpClient.newHttpClient();
    DevRuntimeOptions options = DevRuntimeOptions.parse(new String[] {
        "--http-port", String.valueOf(freePort()), "--temporal-port", String.valueOf(freePort()),
        "--temporal-ui-port", String.valueOf(freePort()), "--management-port", String.valueOf(freePort()),
        "--postgres-port", String.valueOf(freePort()), "--simulator-port", String.valueOf(freePort()),
        "--api-jar", System.getProperty("gshare.dev.api-jar", "api/target/gshare-api.jar"),
        "--worker-jar", System.getProperty("gshare.dev.worker-jar", "cluster-worker/target/gshare-cluster-worker.jar"),
        "--log-dir", Files.createTempDirectory("gshare-bench-logs").toString()}, Map.of());
    try (DevRuntime runtime = DevRuntime.start(options)) {
      Api api = new Api(http, json, runtime.apiUrl());
      String admin = runtime.adminToken();
      String offering = api.call("POST", "/api/v1/offerings", admin,
          "{\"name\":\"bench-slice\",\"gpu_model\":\"NVIDIA A100-SXM4-40GB\",\"mode\":\"fractional\","
              + "\"gpumem_mib\":4096,\"gpucores_percent\":10,\"price_per_hour\":1}").get("id").asText();
      String image = api.call("POST", "/api/v1/images", admin,
          "{\"name\":\"bench\",\"reference\":\"registry.example.com/gshare/jupyter:bench\"}").get("id").asText();
      List<String> tokens = new ArrayList<>();
      for (int i = 0; i < users; i++) {
        String user = api.call("POST", "/api/v1/users", admin, "{\"email\":\"bench" + i + "@example.com\"}").get("id").asText();
        api.call("POST", "/api/v1/credits/grants", admin, "{\"user_id\":\"" + user + "\",\"amount\":1000}");
        tokens.add(api.call("POST", "/api/v1/users/" + user + "/tokens", admin, "{}").get("token").asText());
      }
      KubernetesClient k8s = runtime.clusters().get(0).simulator().newClient();
      List<Long> toPod = Collections.synchronizedList(new ArrayList<>());
      List<Long> toRunning = Collections.synchronizedList(new ArrayList<>());
      List<String> sessions = Collections.synchronizedList(new ArrayList<>());
      ExecutorService pool = Executors.newFixedThreadPool(users);
      long start = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (String token : tokens) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < perUser; i++) {
            long t0 = System.nanoTime();
            String id = api.call("POST", "/api/v1/sessions", token,
                "{\"offering_id\":\"" + offering + "\",\"image_id\":\"" + image + "\"}").at("/session/id").asText();
            sessions.add(id);
            String pod = "gshare-" + id.replace('_', '-');
            while (k8s.pods().inNamespace("gshare-sessions").withName(pod).get() == null) {
              Thread.sleep(20);
            }
            toPod.add(System.nanoTime() - t0);
            while (!"running".equals(api.call("GET", "/api/v1/sessions/" + id, token, null).at("/session/state").asText())) {
              Thread.sleep(50);
            }
            toRunning.add(System.nanoTime() - t0);
            api.call("POST", "/api/v1/sessions/" + id + "/pause", token, "{}");
            api.call("POST", "/api/v1/sessions/" + id + "/resume", token, "{}");
            api.call("DELETE", "/api/v1/sessions/" + id, token, null);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      pool.shutdown();

      WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
          WorkflowServiceStubsOptions.newBuilder().setTarget(runtime.temporalAddress()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      long events = 0;
      for (String id : sessions) {
        events += client.fetchHistory("session-" + id).getHistory().getEventsCount();
      }
      stubs.shutdown();

      double raw = rawLifecycleMillis(k8s, runtime.dbUrl());
      int lifecycles = users * perUser;
      double perLifecycle = seconds * 1000 * users / lifecycles; // wall time of one user's lifecycle
      System.out.printf("%nsession benchmark: %d users x %d lifecycles (create, Running, pause, resume, terminate) on the dev runtime%n",
          users, perUser);
      System.out.printf("  create -> pod object (control plane): p50 %.0f ms, p99 %.0f ms%n", pct(toPod, 50), pct(toPod, 99));
      System.out.printf("  create -> Running: p50 %.0f ms, p99 %.0f ms%n", pct(toRunning, 50), pct(toRunning, 99));
      System.out.printf("  %.2f lifecycles/s; %.0f ms per lifecycle per user%n", lifecycles / seconds, perLifecycle);
      System.out.printf("  Temporal history events per lifecycle: %.0f%n", (double) events / lifecycles);
      System.out.printf("  raw minimum (the same Kubernetes calls and database writes, direct and sequential): %.0f ms;"
          + " overhead ratio %.1fx%n", raw, perLifecycle / raw);
      k8s.close();
    }
  }

  /** Pod, Service and Ingress created then deleted twice (create, pause, resume, end), and the rows those steps write. */
  static double rawLifecycleMillis(KubernetesClient k8s, String jdbcUrl) throws Exception {
    int rounds = 10;
    long start = System.nanoTime();
    try (Connection db = DriverManager.getConnection(jdbcUrl)) {
      db.setAutoCommit(true);
      try (var s = db.createStatement()) {
        s.execute("create temporary table raw_rows (id text, v text)");
      }
      for (int r = 0; r < rounds; r++) {
        for (int phase = 0; phase < 2; phase++) {
          String name = "raw-" + r + "-" + phase;
          k8s.pods().inNamespace("gshare-sessions").resource(new PodBuilder().withNewMetadata().withName(name).endMetadata()
              .withNewSpec().addNewContainer().withName("c").withImage("x").endContainer().endSpec().build()).create();
          k8s.services().inNamespace("gshare-sessions").resource(new ServiceBuilder().withNewMetadata().withName(name)
              .endMetadata().withNewSpec().addNewPort().withPort(80).endPort().endSpec().build()).create();
          k8s.network().v1().ingresses().inNamespace("gshare-sessions").resource(
              new io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder().withNewMetadata().withName(name).endMetadata()
                  .build()).create();
          k8s.pods().inNamespace("gshare-sessions").withName(name).get();
          k8s.network().v1().ingresses().inNamespace("gshare-sessions").withName(name).delete();
          k8s.services().inNamespace("gshare-sessions").withName(name).delete();
          k8s.pods().inNamespace("gshare-sessions").withName(name).delete();
        }
        // session row, allocation, ~8 state writes, 2 windows opened and closed, 2 settlements, 2 releases
        try (PreparedStatement insert = db.prepareStatement("insert into raw_rows values (?, ?)")) {
          for (int w = 0; w < 18; w++) {
            insert.setString(1, "row" + r);
            insert.setString(2, "w" + w);
            insert.executeUpdate();
          }
        }
      }
    }
    return (System.nanoTime() - start) / 1e6 / rounds;
  }

  private static double pct(List<Long> values, int p) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1)) / 1e6;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Small JSON-over-HTTP helper; any non-2xx answer is an error. */
  record Api(HttpClient http, ObjectMapper json, String base) {
    JsonNode call(String method, String path, String token, String body) throws Exception {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
          .header("Authorization", "Bearer " + token)
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
      if (body != null) {
        request.header("Content-Type", "application/json");
      }
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return json.readTree(response.body());
    }
  }
}
