package io.gshare.api.liveusage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiResponse;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.cluster.AgentEnv;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;

/**
 * The live usage chart's path end to end: the usage agent (the cluster-worker jar in agent mode, a real process)
 * samples the cgroup tree the simulator keeps for the session's pod every second and posts it; the api fans it out
 * through PostgreSQL; the owner's Server-Sent Events stream delivers one-second samples, and nobody else's does.
 */
class LiveUsageIT extends ApiIntegrationTest {

  private static final String MODEL = "NVIDIA Live " + NewTestIds.next("m");
  private static final List<AutoCloseable> closing = new ArrayList<>();
  private static final Map<String, String> EVENT_STREAM = Map.of("Accept", "text/event-stream");
  private final ObjectMapper json = new ObjectMapper();
  @Autowired private LiveUsageController controller;
  @Autowired private ConfigurableApplicationContext context;

  @AfterAll
  static void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  @Test
  void theAgentsSamplesReachTheOwnersStreamEverySecondAndNobodyElses() throws Exception {
    AttachedSimulator attached = attachSimulator("live", "live-gpu-0", MODEL, 1, 24576);
    KubeCluster sim = attached.sim();
    closing.add(sim);
    RunningSession running = startSession(MODEL);
    String session = running.id();

    // The pod works 1.5 cores; the agent must see it in the cgroup counters.
    assertThat(sim.setPodLoad("gshare-sessions", podName(session), 1.5, 1073741824L, 0, 0)).isTrue();
    Process agent = startAgent(sim, attached.clusterId());
    closing.add(() -> {
      agent.destroy();
      agent.waitFor(10, TimeUnit.SECONDS);
    });

    List<JsonNode> samples = readStream(session, running.ownerToken(), 6, Duration.ofSeconds(60));
    assertThat(samples).hasSizeGreaterThanOrEqualTo(6);
    double coreSeconds = 0;
    double seconds = 0;
    for (int i = 1; i < samples.size(); i++) {
      Instant before = Instant.parse(samples.get(i - 1).path("sampled_at").asText());
      Instant after = Instant.parse(samples.get(i).path("sampled_at").asText());
      Duration between = Duration.between(before, after);
      assertThat(between).as("samples %s", samples).isBetween(Duration.ofMillis(500), Duration.ofMillis(2500));
      coreSeconds += samples.get(i).path("cpu_cores").asDouble() * between.toNanos() / 1e9;
      seconds += between.toNanos() / 1e9;
    }
    // The simulated counters step once a second, out of phase with the agent's reads, so one sample may count
    // two steps or none (a kernel's counters are continuous); over five intervals the steps average out.
    assertThat(coreSeconds / seconds).as("samples %s", samples).isBetween(1.0, 2.0);
    JsonNode last = samples.get(samples.size() - 1);
    assertThat(last.path("memory_bytes").asLong()).isEqualTo(1073741824L);
    assertThat(last.has("session_id")).isFalse();

    // Anyone but the owner (an admin too) gets the 404 a missing session gets.
    String stranger = tokenFor(newUser("user"));
    for (String token : List.of(stranger, adminToken())) {
      ApiResponse denied = send("GET", streamPath(session), null, token, EVENT_STREAM);
      assertThat(denied.status()).as(denied.text()).isEqualTo(404);
      assertThat(denied.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    }
    assertThat(send("GET", streamPath("not an id"), null, running.ownerToken(), EVENT_STREAM).status())
        .isIn(400, 422);
  }

  @Test
  void anAgentMayNotSpeakForAnotherClustersSessionAndEndedSessionsAreDropped() throws Exception {
    AttachedSimulator attached = attachSimulator("live2", "live2-gpu-0", MODEL, 1, 24576);
    closing.add(attached.sim());
    RunningSession running = startSession(MODEL);
    String sample = "{\"node\":\"n\",\"samples\":[{\"session_id\":\"" + running.id() + "\",\"sampled_at\":\""
        + Instant.now() + "\",\"cpu_cores\":0.5,\"memory_bytes\":1,\"io_read_bytes_per_second\":0,"
        + "\"io_write_bytes_per_second\":0}]}";
    ApiResponse foreign = post("/internal/v1/usage/live", sample, operatorToken(SIM_CLUSTER_ID));
    assertThat(foreign.status()).as(foreign.text()).isEqualTo(403);
    ApiResponse own = post("/internal/v1/usage/live", sample, operatorToken(attached.clusterId()));
    assertThat(own.status()).as(own.text()).isEqualTo(200);
    assertThat(json.readTree(own.text()).path("accepted").asInt()).isEqualTo(1);
    ApiResponse gone = post("/internal/v1/usage/live", sample.replace(running.id(), "ses_" + NewTestIds.next("g")),
        operatorToken(attached.clusterId()));
    assertThat(json.readTree(gone.text()).path("accepted").asInt()).isZero();
    ApiResponse bad = post("/internal/v1/usage/live", sample.replace("0.5", "-1"), operatorToken(attached.clusterId()));
    assertThat(bad.status()).as(bad.text()).isIn(400, 422);
    // The sample posted above is in the session's window: a new viewer gets it first.
    List<JsonNode> backlog = readStream(running.id(), running.ownerToken(), 1, Duration.ofSeconds(10));
    assertThat(backlog).extracting(n -> n.path("cpu_cores").asDouble()).containsExactly(0.5);

    // A stopping process ends the streams it serves at once, before its graceful shutdown waits for them.
    HttpResponse<InputStream> stream =
        api(running.ownerToken()).stream("GET", streamPath(running.id()), null, EVENT_STREAM);
    BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8));
    CompletableFuture<Boolean> ended = CompletableFuture.supplyAsync(() -> {
      try {
        boolean sawSample = false;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          sawSample |= line.startsWith("data:");
          if (sawSample && !closedOnce) {
            closedOnce = true;
            controller.onApplicationEvent(new ContextClosedEvent(context));
          }
        }
        return sawSample;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    try {
      assertThat(ended.get(20, TimeUnit.SECONDS)).as("the backlog's sample came before the end").isTrue();
    } finally {
      stream.body().close();
    }
  }

  private volatile boolean closedOnce;

  private static String podName(String sessionId) {
    return SessionObjects.name(sessionId);
  }

  private Process startAgent(KubeCluster sim, String clusterId) throws IOException, InterruptedException {
    String cgroupRoot = sim.cgroupRoot().toString();
    assertThat(Path.of(cgroupRoot)).isDirectory();
    Path dir = Files.createTempDirectory("live-usage-agent");
    Path token = Files.writeString(dir.resolve("internal-jwt"), operatorToken(clusterId));
    // The worker's own ServiceAccount token and the cluster's CA, as the local-process deployer wrote them for it.
    Path workerDir = Path.of("target", "local-workers", clusterId).toAbsolutePath();
    Path kubeToken = workerDir.resolve("serviceaccount-token");
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
        "-XX:TieredStopAtLevel=1", "-jar", Path.of("..", "cluster-worker", "target", "gshare-cluster-worker.jar")
            .toAbsolutePath().normalize().toString(), "agent");
    builder.environment().put(AgentEnv.CONTROL_PLANE_URL.variable(), "http://127.0.0.1:" + port);
    builder.environment().put(AgentEnv.TOKEN_FILE.variable(), token.toString());
    builder.environment().put(AgentEnv.CGROUP_ROOT.variable(), cgroupRoot);
    builder.environment().put(AgentEnv.HAMI_MONITOR_URL.variable(), sim.hamiMonitorUrl());
    builder.environment().put("KUBERNETES_MASTER", sim.url());
    builder.environment().put("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", kubeToken.toString());
    builder.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    builder.environment().put("KUBERNETES_CERTS_CA_FILE", workerDir.resolve("ca.crt").toString());
    Files.createDirectories(Path.of("target", "local-worker-logs"));
    builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
        Path.of("target", "local-worker-logs", "usage-agent-" + clusterId + ".log").toFile()));
    return builder.start();
  }

  private static String streamPath(String session) {
    return ApiPaths.session(session) + "/usage/stream";
  }

  /** Reads {@code count} usage events from the stream (their data, parsed), or what came within {@code within}. */
  private List<JsonNode> readStream(String session, String token, int count, Duration within) throws Exception {
    HttpResponse<InputStream> response = api(token).stream("GET", streamPath(session), null, EVENT_STREAM);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
    List<JsonNode> samples = new ArrayList<>();
    CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
      Iterator<String> lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))
          .lines().iterator();
      String event = null;
      while (samples.size() < count && lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("event:")) {
          event = line.substring(6).trim();
        } else if (line.startsWith("data:") && "usage".equals(event)) {
          try {
            synchronized (samples) {
              samples.add(json.readTree(line.substring(5).trim()));
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
    });
    try {
      reading.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // return what came
    } finally {
      response.body().close();
    }
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }
}
