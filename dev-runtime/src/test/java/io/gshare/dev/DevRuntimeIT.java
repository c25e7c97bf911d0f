package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiResponse;
import io.gshare.client.GshareClient;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.cluster.Cluster;
import io.gshare.client.credit.Credits;
import io.gshare.client.session.NewSession;
import io.gshare.client.session.SessionDetail;
import io.gshare.client.user.Me;
import io.gshare.client.user.Users;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.LoopbackPorts;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.HttpCookie;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, end to end: real PostgreSQL, the Temporal CLI's dev server with its
 * Web UI, the simulated cluster, and the api and cluster-worker as the processes their jars start.
 * Checks the round trip through the real cluster-worker, kubectl against the simulator, the
 * README's temporal commands, the demo data and the banner's first session (run as printed), a
 * restart that keeps the data, the running workflows and the Schedules and adds no demo data, and
 * that stopping leaves nothing running.
 */
class DevRuntimeIT {

  private static final Path STATE_FILE = Path.of("target", "dev-runtime-it.env").toAbsolutePath();
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void startsEverythingAttachesTwoClustersAndKeepsDataAcrossARestart(@TempDir Path dataDir) throws Exception {
    DevRuntimeOptions options = options(dataDir);
    Map<String, Instant> createdAt = new HashMap<>();
    List<Long> workerPids = new ArrayList<>();
    long apiPid;
    String sessionId;
    String sessionRunId;
    Instant scheduleCreatedAt;
    Map<String, Integer> demoCounts;
    DemoCatalogue.Demo demo;
    String demoToken;
    try (DevRuntime runtime = DevRuntime.start(options)) {
      assertThat(get(runtime, "/healthz", null).statusCode()).isEqualTo(200);
      String admin = runtime.adminToken();
      assertThat(runtime.api().as(null).exchange("GET", ApiPaths.SYSTEM, null).status()).isEqualTo(401);
      assertThat(runtime.clusters()).hasSize(2);
      assertThat(runtime.clusters()).extracting(DevRuntime.AttachedCluster::id).doesNotHaveDuplicates();

      checkBrowserSignIn(runtime);

      Cluster.ConnectionTest test = runtime.connectionTest(runtime.clusters().get(0).id());
      assertThat(test.status()).isEqualTo("connected");
      assertThat(test.simulated()).isTrue();
      assertThat(test.gpuCount()).isEqualTo(12);
      assertThat(test.checks()).containsEntry("runtime_class_nvidia", true);

      JsonNode system = runtime.api().system().get();
      assertThat(system.at("/database/schema_version").asText()).isEqualTo(latestMigration());
      assertThat(system.at("/temporal/reachable").asBoolean()).isTrue();
      assertThat(system.at("/task_queues/0/polled").asBoolean()).isTrue();
      for (DevRuntime.AttachedCluster cluster : runtime.clusters()) {
        JsonNode queue = null;
        for (JsonNode q : system.get("task_queues")) {
          if (q.path("name").asText().equals("gshare-cluster-" + cluster.id())) {
            queue = q;
          }
        }
        assertThat(queue).as(cluster.id()).isNotNull();
        assertThat(queue.path("polled").asBoolean()).isTrue();
        // The poller is a cluster-worker process the attach workflow started, not the api itself.
        String identity = queue.at("/pollers/0/identity").asText();
        assertThat(identity).endsWith("/" + cluster.id());
        long pid = Long.parseLong(identity.substring(0, identity.indexOf('@')));
        assertThat(pid).isNotEqualTo(runtime.apiPid());
        workerPids.add(pid);

        // Each worker reports its inventory with the operator token the attach workflow installed.
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
          JsonNode nodes = runtime.api().get(ApiPaths.query(ApiPaths.NODES, "cluster_id", cluster.id())).get("items");
          assertThat(nodes).hasSize(3);
          int gpus = 0;
          for (JsonNode node : nodes) {
            assertThat(node.get("liveness").asText()).isEqualTo("ready");
            gpus += node.get("gpus").size();
          }
          assertThat(gpus).isEqualTo(12);
        });
        Cluster view = runtime.api().clusters().get(cluster.id());
        assertThat(view.sessionDomain()).isEqualTo(cluster.sessionDomain());
        createdAt.put(cluster.name(), view.createdAt());
        assertThat(kubectl(cluster.kubeconfig(), "get", "nodes"))
            .contains("sim-h100-0", "sim-a100-0", "sim-cpu-0").contains("Ready");
      }
      assertThat(workerPids).doesNotHaveDuplicates();
      assertThat(get(runtime, "/.well-known/gshare-internal-jwks.json", null).body()).startsWith("{\"keys\":[{\"alg\":\"RS256\"");
      assertThat(STATE_FILE).content().contains("GSHARE_DB_URL=" + runtime.dbUrl());
      apiPid = runtime.apiPid();

      // The Web UI serves, and the README's temporal commands find the attach and the metering Schedule.
      HttpResponse<String> ui = http.send(HttpRequest.newBuilder(URI.create(runtime.temporalUiUrl())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ui.statusCode()).isEqualTo(200);
      String first = runtime.clusters().get(0).id();
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
          temporal(runtime, "workflow", "list", "--query", "GshareClusterId='" + first + "'"))
          .contains("cluster-attach-" + first).contains("ClusterAttach"));
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(temporal(runtime, "schedule", "list")).contains("metering-sweep"));

      // The demo data, the banner's first session, and a second seeding that adds nothing.
      demo = runtime.demo();
      demoToken = checkDemoData(runtime);
      checkTheBannersFirstSession(runtime, test, demoToken);
      demoCounts = demoCounts(runtime);
      DemoCatalogue.Demo seededAgain = runtime.seedDemo();
      assertThat(seededAgain.problems()).isEmpty();
      assertThat(seededAgain.offerings()).isEqualTo(demo.offerings());
      assertThat(seededAgain.imageId()).isEqualTo(demo.imageId());
      assertThat(seededAgain.demoUserId()).isEqualTo(demo.demoUserId());
      assertThat(seededAgain.adminUserId()).isEqualTo(demo.adminUserId());
      assertThat(demoCounts(runtime)).isEqualTo(demoCounts);
      assertThat(Files.readString(demo.tokenFile()).trim()).isEqualTo(demoToken);

      // A session left running across the restart below.
      sessionId = startSession(runtime);
      SessionDetail running = awaitSession(runtime, sessionId, "running");
      // Either cluster may be chosen (both have the model); the URL is on the chosen one's domain.
      String chosen = running.session().clusterId();
      DevRuntime.AttachedCluster placed = runtime.clusters().stream().filter(c -> c.id().equals(chosen)).findFirst()
          .orElseThrow(() -> new AssertionError("session on an unknown cluster: " + running));
      assertThat(running.session().url()).startsWith("http://" + placed.sessionDomain() + ":" + options.ingressPort() + "/s/" + sessionId);
      try (Temporal t = new Temporal(runtime.temporalAddress())) {
        sessionRunId = t.workflows().newUntypedWorkflowStub("session-" + sessionId).describe().getExecution().getRunId();
        scheduleCreatedAt = t.schedules().getHandle("metering-sweep").describe().getInfo().getCreatedAt();
      }
    }
    for (long pid : workerPids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    }
    assertThat(ProcessHandle.of(apiPid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
    assertThat(portIsFree(options.httpPort())).isTrue();
    assertThat(STATE_FILE).doesNotExist();

    // Same data directory: the clusters are known, attached again, and keep their history; Temporal
    // kept the running session's execution (the same run: nothing had to be recovered) and the Schedule.
    try (DevRuntime again = DevRuntime.start(options(dataDir, options))) {
      // The demo data was found, not made again; the demo token still signs in and was kept.
      assertThat(again.demo().problems()).isEmpty();
      assertThat(again.demo().offerings()).isEqualTo(demo.offerings());
      assertThat(again.demo().imageId()).isEqualTo(demo.imageId());
      assertThat(again.demo().demoUserId()).isEqualTo(demo.demoUserId());
      assertThat(demoCounts(again)).isEqualTo(demoCounts);
      assertThat(Files.readString(again.demo().tokenFile()).trim()).isEqualTo(demoToken);
      assertThat(again.api().as(demoToken).users().me().id()).isEqualTo(demo.demoUserId());
      for (DevRuntime.AttachedCluster cluster : again.clusters()) {
        Cluster view = again.api().clusters().get(cluster.id());
        assertThat(view.createdAt()).isEqualTo(createdAt.get(cluster.name()));
        assertThat(view.status()).isEqualTo("connected");
      }
      try (Temporal t = new Temporal(again.temporalAddress())) {
        var described = t.workflows().newUntypedWorkflowStub("session-" + sessionId).describe();
        assertThat(described.getExecution().getRunId()).isEqualTo(sessionRunId);
        assertThat(described.getStatus()).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
        assertThat(t.schedules().getHandle("metering-sweep").describe().getInfo().getCreatedAt()).isEqualTo(scheduleCreatedAt);
        // The first attach run is still in visibility beside the second.
        String first = again.clusters().get(0).id();
        assertThat(t.workflows().listExecutions("WorkflowId = 'cluster-attach-" + first + "'").count()).isEqualTo(2);
      }
      // The workflow answers commands after the restart: the session ends cleanly.
      ApiResponse ended = again.api().exchange("DELETE", ApiPaths.session(sessionId), null);
      assertThat(ended.status()).as(ended.text()).isEqualTo(200);
      assertThat(ended.json().at("/session/state").asText()).isEqualTo("terminated");
    }
  }

  /** Temporal clients on the dev runtime's server. */
  private record Temporal(WorkflowServiceStubs stubs) implements AutoCloseable {
    Temporal(String address) {
      this(WorkflowServiceStubs.newServiceStubs(
          WorkflowServiceStubsOptions.newBuilder().setTarget(address).build()));
    }

    WorkflowClient workflows() {
      return WorkflowClient.newInstance(stubs);
    }

    ScheduleClient schedules() {
      return ScheduleClient.newInstance(stubs);
    }

    @Override
    public void close() {
      stubs.shutdown();
    }
  }

  /**
   * The demo data after a first start: an offering per GPU model of the simulator's seed in the mode
   * its nodes serve, each one the demo user could start now; the image; the demo user, signed in by
   * {@code demo.token}; the credits of the demo user and of the super admin. Answers the demo token.
   */
  private String checkDemoData(DevRuntime runtime) throws Exception {
    String admin = runtime.adminToken();
    DemoCatalogue.Demo demo = runtime.demo();
    assertThat(demo).as("seeded without --no-demo").isNotNull();
    assertThat(demo.problems()).isEmpty();
    assertThat(demo.ready()).isTrue();
    assertThat(demo.tokenFile()).isEqualTo(runtime.dataDir().resolve("demo.token"));
    String demoToken = Files.readString(demo.tokenFile()).trim();

    GshareClient asDemo = runtime.api().as(demoToken);
    Me me = asDemo.users().me();
    assertThat(me.id()).isEqualTo(demo.demoUserId());
    assertThat(me.email()).isEqualTo(DemoCatalogue.DEMO_EMAIL);
    assertThat(me.role()).isEqualTo("user");
    assertThat(me.displayName()).startsWith(DemoCatalogue.PREFIX);
    assertThat(runtime.api().users().me().id()).isEqualTo(demo.adminUserId());

    // The default seed: 8 H100 on an exclusive node, 4 A100 on a fractional one.
    Set<String> seeded = new HashSet<>();
    for (SimSeed.NodeSpec node : SimSeed.defaultSeed().nodes()) {
      if (node.hasGpus()) {
        seeded.add(node.gpus().model() + " / " + node.gpuMode());
      }
    }
    assertThat(seeded).containsExactlyInAnyOrder("NVIDIA H100 80GB HBM3 / exclusive", "NVIDIA A100-SXM4-40GB / fractional");
    Map<String, JsonNode> offerings = new HashMap<>();
    // As the API answers them: members absent for a mode are absent, not null.
    for (JsonNode o : asDemo.get(ApiPaths.OFFERINGS).path("items")) {
      if (o.path("name").asText().startsWith(DemoCatalogue.PREFIX)) {
        assertThat(offerings.put(o.path("gpu_model").asText() + " / " + o.path("mode").asText(), o))
            .as("one demo offering per model and mode").isNull();
      }
    }
    assertThat(offerings.keySet()).containsExactlyInAnyOrderElementsOf(seeded);
    JsonNode exclusive = offerings.get("NVIDIA H100 80GB HBM3 / exclusive");
    assertThat(exclusive.path("name").asText()).isEqualTo("demo: NVIDIA H100 80GB HBM3, 1 whole GPU");
    assertThat(exclusive.path("gpu_count").asInt()).isEqualTo(1);
    assertThat(exclusive.has("gpumem_mib")).isFalse();
    assertThat(exclusive.path("price_per_hour").decimalValue()).isEqualByComparingTo("2");
    JsonNode fractional = offerings.get("NVIDIA A100-SXM4-40GB / fractional");
    assertThat(fractional.path("name").asText()).isEqualTo("demo: NVIDIA A100-SXM4-40GB, 1/4 GPU slice");
    assertThat(fractional.has("gpu_count")).isFalse();
    assertThat(fractional.path("gpumem_mib").asInt()).isEqualTo(10240);
    assertThat(fractional.path("gpucores_percent").asInt()).isEqualTo(25);
    assertThat(fractional.path("price_per_hour").decimalValue()).isEqualByComparingTo("0.5");
    for (JsonNode o : offerings.values()) {
      assertThat(o.path("active").asBoolean()).isTrue();
      assertThat(o.path("cluster_has").asBoolean()).isTrue();
      // Placement (and admission: credits) would take it now, as the demo user.
      JsonNode availability = asDemo.get(ApiPaths.query(ApiPaths.AVAILABILITY, "offering_id", o.path("id").asText()));
      assertThat(availability.path("cluster_id").asText()).as(availability.toString()).startsWith("clu_");
    }
    assertThat(demo.offerings()).extracting(DemoCatalogue.Offering::id)
        .containsExactlyInAnyOrderElementsOf(offerings.values().stream().map(o -> o.path("id").asText()).toList());
    assertThat(demo.sessionOffering().orElseThrow().id()).isEqualTo(exclusive.path("id").asText());

    Catalogue.Image image = asDemo.catalogue().images().items().stream()
        .filter(i -> DemoCatalogue.IMAGE_NAME.equals(i.name())).findFirst().orElse(null);
    assertThat(image).as("the demo image, visible to the demo user").isNotNull();
    assertThat(image.id()).isEqualTo(demo.imageId());
    assertThat(image.reference()).isEqualTo(DemoCatalogue.IMAGE_REFERENCE);
    assertThat(image.port()).isEqualTo(8888);
    assertThat(image.description()).startsWith("demo data");

    for (String token : List.of(demoToken, admin)) {
      Credits.Account credits = runtime.api().as(token).credits().of(null);
      List<Credits.Entry> grants = credits.entries().stream()
          .filter(e -> "grant".equals(e.kind()) && String.valueOf(e.description()).startsWith(DemoCatalogue.PREFIX))
          .toList();
      assertThat(grants).as(credits.toString()).hasSize(1);
      assertThat(grants.get(0).amount()).isEqualByComparingTo(DemoCatalogue.CREDITS);
      assertThat(credits.balance()).isGreaterThanOrEqualTo(DemoCatalogue.CREDITS);
    }
    return demoToken;
  }

  /**
   * The banner's first-session lines: the create's request as printed (same body, demo token) reaches
   * running at a URL its owner may open; then, where bash and curl are installed, the lines themselves,
   * run as printed. Both sessions are ended afterwards.
   */
  private void checkTheBannersFirstSession(DevRuntime runtime, Cluster.ConnectionTest connectionTest, String demoToken)
      throws Exception {
    DemoCatalogue.Demo demo = runtime.demo();
    String banner = DevRuntimeMain.banner(runtime, connectionTest);
    List<String> lines = DevRuntimeMain.firstSessionLines(runtime);
    assertThat(lines).hasSize(4);
    for (String line : lines) {
      assertThat(banner).contains("   " + line + "\n");
    }
    assertThat(lines.get(0)).isEqualTo("export DEMO_TOKEN=$(cat " + runtime.dataDir().resolve("demo.token") + ")");
    assertThat(lines.get(1)).contains("curl -s -XPOST " + runtime.apiUrl() + ApiPaths.SESSIONS + " ");
    Matcher body = Pattern.compile("-d '([^']*)'").matcher(lines.get(1));
    assertThat(body.find()).as(lines.get(1)).isTrue();
    assertThat(body.group(1)).isEqualTo(demo.sessionBody());
    JsonNode sent = json.readTree(body.group(1));
    assertThat(sent.path("offering_id").asText()).isEqualTo(demo.sessionOffering().orElseThrow().id());
    assertThat(sent.path("image_id").asText()).isEqualTo(demo.imageId());

    // The create's request, as the line sends it.
    ApiResponse created = runtime.api().as(demoToken).exchange("POST", ApiPaths.SESSIONS, body.group(1));
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    String id = created.json().at("/session/id").asText();
    assertThat(id).matches("ses_[0-9a-z]{16}");
    SessionDetail running = awaitSession(runtime, id, "running");
    String url = running.session().url();
    DevRuntime.AttachedCluster placed = runtime.clusters().stream()
        .filter(c -> c.id().equals(running.session().clusterId())).findFirst().orElseThrow();
    assertThat(url).isEqualTo(runtime.sessionOrigin(placed) + "/s/" + id + "/");
    assertThat(url).startsWith("http://" + placed.sessionDomain() + ":");
    assertThat(connectVerify(runtime, demoToken, url).statusCode()).isEqualTo(200);
    // Only its owner opens it: the super admin gets 403.
    assertThat(connectVerify(runtime, runtime.adminToken(), url).statusCode()).isEqualTo(403);
    List<String> sessions = new ArrayList<>(List.of(id));

    // The lines themselves, pasted into a shell.
    if (onPath("bash") && onPath("curl")) {
      ProcessBuilder paste = new ProcessBuilder("bash", "-c", String.join("\n", lines)).redirectErrorStream(true);
      // A proxy set in this environment must not take curl's loopback calls (Java's client ignores it).
      paste.environment().put("NO_PROXY", "127.0.0.1,localhost,.localhost");
      paste.environment().put("no_proxy", "127.0.0.1,localhost,.localhost");
      Process shell = paste.start();
      boolean ended = shell.waitFor(150, TimeUnit.SECONDS);
      if (!ended) {
        shell.destroyForcibly();
      }
      String output = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(ended).as("the banner's lines within 150 s:%n%s", output).isTrue();
      assertThat(shell.exitValue()).as(output).isZero();
      Matcher printed = Pattern.compile("SESSION=(ses_[0-9a-z]{16})").matcher(output);
      assertThat(printed.find()).as(output).isTrue();
      String viaShell = printed.group(1);
      sessions.add(viaShell);
      List<String> out = output.lines().toList();
      assertThat(out).as(output).contains("\"state\":\"running\"");
      SessionDetail shellSession = runtime.api().sessions().get(viaShell);
      assertThat(shellSession.session().userId()).isEqualTo(demo.demoUserId());
      assertThat(out).as(output).contains(shellSession.session().url());
      assertThat(out.get(out.size() - 1)).as(output).isEqualTo("200");
    } else {
      System.out.println("DevRuntimeIT: no bash or curl on PATH; the banner's lines were checked by their request only");
    }

    for (String session : sessions) {
      runtime.api().as(demoToken).sessions().terminate(session);
      awaitSession(runtime, session, "terminated");
    }
  }

  /** What a session's ingress asks before letting a browser in (ingress-nginx's auth-url shape). */
  private HttpResponse<String> connectVerify(DevRuntime runtime, String token, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + "/internal/connect/verify"))
        .header("Authorization", "Bearer " + token).header("X-Original-URL", url).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static boolean onPath(String command) throws Exception {
    Process which = new ProcessBuilder("sh", "-c", "command -v " + command).redirectErrorStream(true).start();
    return which.waitFor(10, TimeUnit.SECONDS) && which.exitValue() == 0;
  }

  /** How many demo objects exist: what a second seeding must leave unchanged. */
  private Map<String, Integer> demoCounts(DevRuntime runtime) throws Exception {
    GshareClient api = runtime.api();
    Map<String, Integer> counts = new TreeMap<>();
    counts.put("offerings", count(api.catalogue().offerings().items(),
        o -> o.name().startsWith(DemoCatalogue.PREFIX)));
    counts.put("images", count(api.catalogue().images().items(), i -> i.name().startsWith(DemoCatalogue.PREFIX)));
    List<String> demoUsers = api.users().list().items().stream()
        .filter(u -> DemoCatalogue.DEMO_EMAIL.equalsIgnoreCase(u.email())).map(Users.User::id).toList();
    counts.put("users", demoUsers.size());
    assertThat(demoUsers).hasSize(1);
    String demoUser = demoUsers.get(0);
    String adminUser = api.users().me().id();
    for (Map.Entry<String, String> user : Map.of("demo user", demoUser, "super admin", adminUser).entrySet()) {
      counts.put("grants of the " + user.getKey(), count(
          api.get(ApiPaths.query(ApiPaths.CREDITS, "limit", 1000, "user_id", user.getValue()), Credits.Account.class)
              .entries(),
          e -> "grant".equals(e.kind()) && String.valueOf(e.description()).startsWith(DemoCatalogue.PREFIX)));
    }
    counts.put("tokens of the demo user", api.get(ApiPaths.userTokens(demoUser)).path("items").size());
    return counts;
  }

  private static <T> int count(List<T> items, Predicate<T> which) {
    return (int) items.stream().filter(which).count();
  }

  /** An offering, an image and credits for the runtime's super admin, then a session of one H100. */
  private String startSession(DevRuntime runtime) throws Exception {
    GshareClient api = runtime.api();
    String offering = api.catalogue().createOffering(new Catalogue.NewOffering("h100-restart", "NVIDIA H100 80GB HBM3",
        "exclusive", 1, null, null, BigDecimal.ONE, null)).id();
    String image = api.catalogue().createImage(new Catalogue.NewImage("jupyter-restart",
        "registry.example.com/gshare/jupyter:2026.11", null, null, null, null)).id();
    String me = api.users().me().id();
    api.credits().grant(new Credits.Grant(me, new BigDecimal("100"), null, "restart-it"));
    return api.sessions().create(new NewSession(offering, image, null, null, null)).session().id();
  }

  private SessionDetail awaitSession(DevRuntime runtime, String id, String state) {
    SessionDetail[] last = new SessionDetail[1];
    Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      last[0] = runtime.api().sessions().get(id);
      assertThat(last[0].session().state()).as(last[0].toString()).isEqualTo(state);
    });
    return last[0];
  }

  /** The README's temporal commands, with the binary make tools installs. */
  private static String temporal(DevRuntime runtime, String... args) throws Exception {
    Path cli = Path.of(System.getProperty("gshare.dev.temporal-cli", ".tools/bin/temporal"));
    List<String> command = new ArrayList<>(List.of(cli.toString()));
    command.addAll(List.of(args));
    command.addAll(List.of("--address", runtime.temporalAddress()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  /** The highest V<n>__ migration the api ships. */
  private static String latestMigration() throws IOException {
    try (var files = Files.list(Path.of("..", "api", "src", "main", "resources", "db", "migration"))) {
      return String.valueOf(files.map(f -> f.getFileName().toString())
          .filter(n -> n.matches("V\\d+__.*\\.sql"))
          .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__"))))
          .max().orElseThrow());
    }
  }

  /**
   * The banner's sign-in link through the embedded OpenID Connect provider, as a browser follows it: the redirect to
   * the provider, its login form, the callback, the cookies; then the API with the cookie (and the CSRF header for a
   * state-changing call), and sign-out.
   */
  private void checkBrowserSignIn(DevRuntime runtime) throws Exception {
    CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
    HttpClient browser = HttpClient.newBuilder().cookieHandler(cookies).followRedirects(HttpClient.Redirect.ALWAYS)
        .build();
    HttpResponse<String> loginPage = browser.send(HttpRequest.newBuilder(URI.create(runtime.signInUrl())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(loginPage.statusCode()).isEqualTo(200);
    assertThat(loginPage.uri().toString()).startsWith(runtime.oidcIssuer() + "/authorize");
    assertThat(loginPage.body()).contains("name=\"username\"");
    String email = "ada-" + System.nanoTime() + "@example.com";
    String form = "username=" + URLEncoder.encode(email, StandardCharsets.UTF_8) + "&claims="
        + URLEncoder.encode("{\"email\":\"" + email + "\",\"" + EmbeddedOidcProvider.ROLE_CLAIM + "\":[\""
            + EmbeddedOidcProvider.ADMIN_VALUE + "\"]}", StandardCharsets.UTF_8);
    HttpResponse<String> console = browser.send(HttpRequest.newBuilder(loginPage.uri())
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(console.statusCode()).as(console.body()).isEqualTo(200);
    assertThat(console.uri().toString()).isEqualTo(runtime.apiUrl() + "/");
    assertThat(console.body()).contains("/console/console.js");
    HttpCookie token = cookies.getCookieStore().getCookies().stream()
        .filter(c -> c.getName().equals("gshare_token")).findFirst().orElseThrow();
    assertThat(token.isHttpOnly()).isTrue();
    String csrf = cookies.getCookieStore().getCookies().stream().filter(c -> c.getName().equals("gshare_csrf"))
        .findFirst().orElseThrow().getValue();

    // Provisioned on first sign-in, an admin by the role claim; the cookie alone authenticates reads.
    HttpResponse<String> me = browser.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + ApiPaths.ME))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(me.statusCode()).as(me.body()).isEqualTo(200);
    assertThat(json.readTree(me.body()).path("email").asText()).isEqualTo(email);
    assertThat(json.readTree(me.body()).path("role").asText()).isEqualTo("admin");
    // A state-changing call needs the CSRF header besides the cookie.
    String team = "{\"name\":\"browser-" + System.nanoTime() + "\"}";
    HttpResponse<String> forged = browser.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + ApiPaths.TEAMS))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(team)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(forged.statusCode()).as(forged.body()).isEqualTo(401);
    assertThat(forged.body()).contains("X-CSRF-Token");
    HttpResponse<String> created = browser.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + ApiPaths.TEAMS))
        .header("Content-Type", "application/json").header("X-CSRF-Token", csrf)
        .POST(HttpRequest.BodyPublishers.ofString(team)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    // Sign-out revokes the browser's token: the cookie no longer opens anything.
    HttpResponse<String> out = browser.send(HttpRequest.newBuilder(URI.create(runtime.apiUrl() + "/auth/logout"))
        .header("X-CSRF-Token", csrf).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(out.statusCode()).as(out.body()).isEqualTo(204);
    ApiResponse revoked = runtime.api().as(null).exchange("GET", ApiPaths.ME, null,
        Map.of("Cookie", "gshare_token=" + token.getValue()));
    assertThat(revoked.status()).isEqualTo(401);
  }

  private DevRuntimeOptions options(Path dataDir) {
    return options(dataDir, null);
  }

  /** Fresh free ports, except the simulators' when {@code previous} is given: stored kubeconfigs name them. */
  private DevRuntimeOptions options(Path dataDir, DevRuntimeOptions previous) {
    int simulatorPort = previous != null ? previous.simulatorPort() : freePortPair();
    return DevRuntimeOptions.parse(new String[] {
        "--data-dir", dataDir.toString(),
        "--clusters", "2",
        "--http-port", String.valueOf(freePort()),
        "--management-port", String.valueOf(freePort()),
        "--temporal-port", String.valueOf(freePort()),
        "--temporal-ui-port", String.valueOf(freePort()),
        "--oidc-port", String.valueOf(freePort()),
        "--temporal-cli", System.getProperty("gshare.dev.temporal-cli"),
        "--nginx", System.getProperty("gshare.dev.nginx"),
        // Kept across a restart, as make dev's default is: recorded session URLs name it.
        "--ingress-port", String.valueOf(previous != null ? previous.ingressPort() : freePort()),
        "--postgres-port", String.valueOf(freePort()),
        "--simulator-port", String.valueOf(simulatorPort),
        "--api-jar", System.getProperty("gshare.dev.api-jar"),
        "--worker-jar", System.getProperty("gshare.dev.worker-jar"),
        "--local-deployer-jar", System.getProperty("gshare.dev.local-deployer-jar"),
        "--log-dir", Path.of("target", "dev-runtime-it-logs").toAbsolutePath().toString(),
        // Its own, not .gshare-dev/runtime.env: the other classes' runtimes run at the same time.
        "--state-file", STATE_FILE.toString()}, Map.of());
  }

  private HttpResponse<String> get(DevRuntime runtime, String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(runtime.apiUrl() + path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String kubectl(Path kubeconfig, String... args) throws Exception {
    Path kubectl = Path.of(System.getProperty("gshare.dev.kubectl", ".tools/bin/kubectl"));
    assertThat(kubectl).as("kubectl (make tools installs it into .tools/bin)").isExecutable();
    List<String> command = new ArrayList<>(List.of(kubectl.toString(), "--kubeconfig", kubeconfig.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  /**
   * Below the ephemeral range (LoopbackPorts): a port probed there was once taken by an outgoing connection in the
   * minute before the restarted api bound it ("Port ... was already in use").
   */
  private static int freePort() {
    return LoopbackPorts.free();
  }

  /** A free port whose successor is free too (two simulators listen side by side). */
  private static int freePortPair() {
    for (int attempt = 0; attempt < 50; attempt++) {
      int port = freePort();
      if (port < 65535 && portIsFree(port + 1)) {
        return port;
      }
    }
    throw new IllegalStateException("no two adjacent free ports");
  }

  private static boolean portIsFree(int port) {
    try (ServerSocket socket = new ServerSocket(port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
