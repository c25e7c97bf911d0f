package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gshare.cli.CliEnv;
import io.gshare.cli.GshareCli;
import io.gshare.cli.config.ConfigStore;
import io.gshare.cli.support.Terminal;
import io.gshare.client.ApiPaths;
import io.gshare.client.ApiProblemException;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.cluster.Cluster;
import io.gshare.client.credit.Credits;
import io.gshare.client.node.Node;
import io.gshare.client.operation.Operation;
import io.gshare.client.operation.OperationList;
import io.gshare.client.session.NewSession;
import io.gshare.client.session.SessionDetail;
import io.gshare.client.session.SessionList;
import io.gshare.client.user.Me;
import io.gshare.client.user.Users;
import io.gshare.client.volume.StoragePool;
import io.gshare.client.volume.Volume;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.ParameterizedType;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The gshare CLI against the dev runtime's parts (real PostgreSQL, the Temporal dev server, the simulated cluster
 * and its worker, the embedded OpenID Connect provider): sign-in with a token and in a browser, a session's whole
 * life with --wait, JSON and YAML parsed back, an API refusal's detail and exit code 1, a usage error's exit 2, the
 * completion scripts, and the launcher as a real process. The commands run in-process, as the launcher runs them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CliIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** A new one per test: each signs in afresh. */
  private Path configDir;

  private DevRuntime runtime;

  record Run(int exit, String out, String err) {
    JsonNode json() throws IOException {
      return JSON.readTree(out);
    }
  }

  @BeforeEach
  void freshConfig() throws IOException {
    configDir = Files.createTempDirectory("gshare-cli-it-config");
  }

  @BeforeAll
  void start() throws IOException {
    runtime = TestRuntimes.start("cli-it-logs");
  }

  @AfterAll
  void stop() {
    if (runtime != null) {
      runtime.close();
    }
  }

  private Run gshare(String... args) {
    return gshare(url -> false, args);
  }

  private Run gshare(CliEnv.Browser browser, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CliEnv env = new CliEnv(new Terminal(new PrintWriter(out, true), new PrintWriter(err, true), false, 0),
        new ConfigStore(configDir), name -> null, browser, Duration.ofMillis(300));
    int exit = GshareCli.run(env, args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void aTokenLoginAndASessionsWholeLifeWithWait() throws Exception {
    DemoCatalogue.Demo demo = runtime.demo();
    String demoToken = Files.readString(demo.tokenFile()).trim();
    Run login = gshare("login", "--server", runtime.apiUrl(), "--token", demoToken, "--name", "dev");
    assertThat(login.exit()).as(login.err()).isZero();
    assertThat(login.err()).contains("signed in to " + runtime.apiUrl() + " as " + DemoCatalogue.DEMO_EMAIL);
    Path config = configDir.resolve(ConfigStore.FILE_NAME);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config))).isEqualTo("rw-------");
    assertThat(Files.readString(config)).contains(demoToken);
    assertThat(gshare("context", "current").out().trim()).isEqualTo("dev");
    Run contexts = gshare("context", "list", "-o", "json");
    assertThat(contexts.out()).doesNotContain(demoToken);
    assertThat(contexts.json().get(0).path("current").asBoolean()).isTrue();

    Run whoami = gshare("whoami", "-o", "json");
    assertThat(whoami.json().path("email").asText()).isEqualTo(DemoCatalogue.DEMO_EMAIL);

    String offering = demo.offerings().stream().filter(o -> "exclusive".equals(o.mode())).findFirst().orElseThrow().id();
    Run created = gshare("sessions", "create", "--offering", offering, "--image", demo.imageId(), "--name", "cli-it",
        "--wait", "-o", "json");
    assertThat(created.exit()).as(created.err()).isZero();
    JsonNode session = created.json().path("session");
    String id = session.path("id").asText();
    assertThat(session.path("state").asText()).isEqualTo("running");
    assertThat(session.path("url").asText()).endsWith("/s/" + id + "/");
    // Piped, progress is one plain line per step as it moves, on stderr, so stdout stays parseable.
    assertThat(created.err()).contains("session " + id + " created; waiting until it runs")
        .contains("open billing: done");

    Run listed = gshare("sessions", "list", "-o", "json");
    assertThat(listed.json().path("items").findValuesAsText("id")).contains(id);
    Run table = gshare("sessions", "list", "--no-headers");
    assertThat(table.out()).doesNotContain("STATE").contains(id).contains("running");

    Run open = gshare("sessions", "open", id, "--print");
    assertThat(open.exit()).isZero();
    assertThat(open.out().trim()).isEqualTo(session.path("url").asText());
    List<URI> opened = new ArrayList<>();
    Run inBrowser = gshare(url -> opened.add(url), "sessions", "open", id);
    assertThat(inBrowser.exit()).isZero();
    assertThat(opened).containsExactly(URI.create(session.path("url").asText()));

    Run paused = gshare("sessions", "pause", id, "--wait", "-o", "yaml");
    assertThat(paused.exit()).as(paused.err()).isZero();
    assertThat(YAML.readTree(paused.out()).path("session").path("state").asText()).isEqualTo("paused");
    Run notOpen = gshare("sessions", "open", id, "--print");
    assertThat(notOpen.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(notOpen.err()).contains("is paused").contains("gshare sessions resume " + id);

    Run resumed = gshare("sessions", "resume", id, "--wait", "-o", "json");
    assertThat(resumed.exit()).as(resumed.err()).isZero();
    assertThat(resumed.json().path("session").path("state").asText()).isEqualTo("running");
    Run waited = gshare("sessions", "wait", id, "--for", "running", "-o", "json");
    assertThat(waited.json().path("session").path("state").asText()).isEqualTo("running");

    Run logs = gshare("sessions", "logs", id, "-o", "json");
    assertThat(logs.exit()).as(logs.err()).isZero();
    assertThat(logs.json().path("runs").findValuesAsText("type")).contains("Session");

    Run deleted = gshare("sessions", "delete", id, "--wait", "-o", "json");
    assertThat(deleted.exit()).as(deleted.err()).isZero();
    assertThat(deleted.json().path("session").path("state").asText()).isEqualTo("terminated");
    // Waiting for a state an ended session will never reach fails at once, saying why.
    Run never = gshare("sessions", "wait", id, "--for", "running");
    assertThat(never.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(never.err()).contains("is terminated");

    // The last window is charged as the session's workflow settles, which may come just after "terminated".
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        gshare("credits", "-o", "json").json().path("balance").decimalValue()).isLessThan(DemoCatalogue.CREDITS));
  }

  @Test
  void anApiRefusalPrintsItsDetailAndExits1() throws Exception {
    assertThat(gshare("login", "--server", runtime.apiUrl(), "--token", runtime.adminToken(), "--name", "admin").exit())
        .isZero();
    String hostname = "sim-h100-0";
    Run nodes = gshare("--context", "admin", "nodes", "list", "-o", "json");
    assertThat(nodes.json().path("items").findValuesAsText("hostname")).contains(hostname);
    // A node its worker still reports cannot be deleted: 409 node_live, the API's words on stderr.
    Run refused = gshare("--context", "admin", "nodes", "delete", hostname);
    assertThat(refused.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(refused.err()).contains("409 node_live").startsWith("error: ");
    assertThat(refused.out()).isEmpty();
    Run unknown = gshare("--context", "admin", "sessions", "get", "ses_nosuchsession");
    assertThat(unknown.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(unknown.err()).contains("404 not_found");
    Run test = gshare("--context", "admin", "clusters", "test", runtime.clusters().get(0).name(), "-o", "json");
    assertThat(test.exit()).as(test.err()).isZero();
    assertThat(test.json().path("status").asText()).isEqualTo("connected");
  }

  @Test
  void anOperatorDrainsAndUncordonsANodeFollowingItsSteps() throws Exception {
    assertThat(gshare("login", "--server", runtime.apiUrl(), "--token", runtime.adminToken(), "--name", "ops").exit())
        .isZero();
    // The fractional node: the session test uses the exclusive one.
    Run drained = gshare("nodes", "drain", "sim-a100-0", "--reason", "driver upgrade", "--wait", "-o", "json");
    assertThat(drained.exit()).as(drained.err()).isZero();
    String operation = drained.json().at("/operation/id").asText();
    assertThat(operation).isNotBlank();
    // Piped progress: a line per step as it moved, ending with the last step done.
    assertThat(drained.err()).contains(" | ").contains(": done");
    Run steps = gshare("operations", "get", operation, "-o", "json");
    assertThat(steps.json().path("status").asText()).isEqualTo("completed");
    assertThat(steps.json().path("steps").findValuesAsText("status")).isNotEmpty().allMatch("done"::equals);
    Run cordoned = gshare("nodes", "list", "-o", "json");
    JsonNode node = null;
    for (JsonNode n : cordoned.json().path("items")) {
      if (n.path("hostname").asText().equals("sim-a100-0")) {
        node = n;
      }
    }
    assertThat(node).isNotNull();
    // Recorded at once; the node's own schedulable flag follows with the worker's next inventory report.
    assertThat(node.path("drain_state").asText()).isEqualTo("drained");
    Run runs = gshare("operations", "list", "--object", "node/" + node.path("id").asText());
    assertThat(runs.exit()).as(runs.err()).isZero();
    assertThat(runs.out()).contains("OPERATION").contains(operation);

    Run uncordoned = gshare("nodes", "uncordon", "sim-a100-0", "--wait");
    assertThat(uncordoned.exit()).as(uncordoned.err()).isZero();
    assertThat(uncordoned.out()).contains("sim-a100-0");
  }

  @Test
  void usageErrorsExit2AndNothingIsWritten() {
    Run missing = gshare("sessions", "create", "--offering", "off_x");
    assertThat(missing.exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(missing.err()).contains("Missing required option: '--image=ID'").contains("Usage: gshare sessions create");
    Run badFormat = gshare("sessions", "list", "-o", "xml");
    assertThat(badFormat.exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(badFormat.err()).contains("'xml' is not one of table, json, yaml");
    Run noCommand = gshare();
    assertThat(noCommand.exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(noCommand.err()).contains("a command is needed");
  }

  @Test
  void aBrowserSignInThroughTheIdentityProvider() throws Exception {
    String email = "grace-" + System.nanoTime() + "@example.com";
    List<Integer> statuses = new ArrayList<>();
    Run login = gshare(url -> {
      statuses.add(signInAs(url, email));
      return true;
    }, "login", "--server", runtime.apiUrl(), "--name", "sso");
    assertThat(login.exit()).as(login.err()).isZero();
    // The browser ended on the CLI's loopback page, which said so.
    assertThat(statuses).containsExactly(200);
    assertThat(login.err()).contains("as " + email);
    Run whoami = gshare("--context", "sso", "whoami", "-o", "json");
    assertThat(whoami.json().path("email").asText()).isEqualTo(email);
    JsonNode config = YAML.readTree(configDir.resolve(ConfigStore.FILE_NAME).toFile());
    assertThat(config.at("/contexts/sso/token_expires_at").asText()).isNotBlank();
  }

  /** What a person does in the browser: the provider's login form, then every redirect to the end. */
  private int signInAs(URI url, String email) {
    try {
      CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
      HttpClient browser = HttpClient.newBuilder().cookieHandler(cookies).followRedirects(HttpClient.Redirect.ALWAYS)
          .build();
      HttpResponse<String> loginPage = browser.send(HttpRequest.newBuilder(url).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(loginPage.uri().toString()).startsWith(runtime.oidcIssuer() + "/authorize");
      String form = "username=" + URLEncoder.encode(email, StandardCharsets.UTF_8) + "&claims="
          + URLEncoder.encode("{\"email\":\"" + email + "\"}", StandardCharsets.UTF_8);
      HttpResponse<String> back = browser.send(HttpRequest.newBuilder(loginPage.uri())
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(back.uri().getHost()).isEqualTo("127.0.0.1");
      assertThat(back.uri().getPath()).isEqualTo("/callback");
      assertThat(back.body()).contains("Signed in");
      return back.statusCode();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void completionScriptsLoadInTheirShells() throws Exception {
    Run bash = gshare("completion", "bash");
    assertThat(bash.exit()).isZero();
    Path script = configDir.resolve("gshare.bash");
    Files.writeString(script, bash.out());
    Process loaded = new ProcessBuilder("bash", "-c", "source '" + script + "' && complete -p gshare")
        .redirectErrorStream(true).start();
    assertThat(loaded.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String said = new String(loaded.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(loaded.exitValue()).as(said).isZero();
    assertThat(said).contains("gshare");
    assertThat(bash.out()).contains("sessions").contains("drain").contains("--offering");
    Run zsh = gshare("completion", "zsh");
    assertThat(zsh.out()).startsWith("#compdef gshare").contains("bashcompinit").contains("--offering");
    assertThat(gshare("completion", "fish").exit()).isEqualTo(GshareCli.EXIT_USAGE);
  }

  @Test
  void theLauncherRunsTheJarAsAProcess() throws Exception {
    Path launcher = Path.of(System.getProperty("gshare.cli.launcher"));
    Map<String, String> env = Map.of("GSHARE_CLI_JAR", System.getProperty("gshare.cli.jar"),
        "GSHARE_CONFIG_DIR", configDir.toString(), "GSHARE_SERVER", runtime.apiUrl(),
        "GSHARE_TOKEN", runtime.adminToken());
    assertThat(run(launcher, env, "--version").out()).startsWith("gshare ");
    Run clusters = run(launcher, env, "clusters", "list", "-o", "json");
    assertThat(clusters.exit()).as(clusters.err()).isZero();
    assertThat(clusters.json().path("items").findValuesAsText("id")).contains(runtime.clusters().get(0).id());
    // A token on standard input stays out of the process list.
    Map<String, String> fresh = Map.of("GSHARE_CLI_JAR", System.getProperty("gshare.cli.jar"),
        "GSHARE_CONFIG_DIR", configDir.resolve("stdin").toString());
    Run login = runWithInput(launcher, fresh, runtime.adminToken() + "\n", "login", "--server", runtime.apiUrl(),
        "--token-stdin");
    assertThat(login.exit()).as(login.err()).isZero();
    assertThat(run(launcher, fresh, "whoami", "--no-headers").out()).contains(runtime.apiUrl());
    Run usage = run(launcher, env, "nodes", "drain");
    assertThat(usage.exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(usage.err()).contains("Missing required parameter: 'NODE'");
  }

  /**
   * The OpenAPI document is the CLI's contract: every member its wire records read or write is one the served
   * document declares, at every depth, for the operation the CLI calls.
   */
  @Test
  void theCliReadsAndWritesOnlyWhatTheServedDocumentDeclares() throws Exception {
    JsonNode doc = runtime.api().get(ApiPaths.BASE + "/openapi");
    record Use(Class<?> type, String method, String path, boolean request) {}
    List<Use> uses = List.of(
        new Use(SessionDetail.class, "get", ApiPaths.SESSIONS + "/{id}", false),
        new Use(SessionList.class, "get", ApiPaths.SESSIONS, false),
        new Use(NewSession.class, "post", ApiPaths.SESSIONS, true),
        new Use(SessionDetail.class, "post", ApiPaths.SESSIONS, false),
        new Use(Operation.class, "get", ApiPaths.OPERATIONS + "/{workflowId}", false),
        new Use(OperationList.class, "get", ApiPaths.OPERATIONS, false),
        new Use(Volume.class, "get", ApiPaths.VOLUMES + "/{id}", false),
        new Use(Volume.VolumeList.class, "get", ApiPaths.VOLUMES, false),
        new Use(Volume.NewVolume.class, "post", ApiPaths.VOLUMES, true),
        new Use(Volume.ExpansionInput.class, "post", ApiPaths.VOLUMES + "/{id}/expansion", true),
        new Use(Credits.Account.class, "get", ApiPaths.CREDITS, false),
        new Use(Credits.Grant.class, "post", ApiPaths.CREDIT_GRANTS, true),
        new Use(Credits.Granted.class, "post", ApiPaths.CREDIT_GRANTS, false),
        new Use(Cluster.class, "get", ApiPaths.CLUSTERS + "/{id}", false),
        new Use(Cluster.ClusterList.class, "get", ApiPaths.CLUSTERS, false),
        new Use(Cluster.NewCluster.class, "post", ApiPaths.CLUSTERS, true),
        new Use(Cluster.Accepted.class, "post", ApiPaths.CLUSTERS, false),
        new Use(Cluster.Accepted.class, "post", ApiPaths.CLUSTERS + "/{id}/rotate-token", false),
        new Use(Cluster.ConnectionTest.class, "post", ApiPaths.CLUSTERS + "/{id}/connection-test", false),
        new Use(Node.NodeList.class, "get", ApiPaths.NODES, false),
        new Use(Node.GpuList.class, "get", ApiPaths.GPUS, false),
        new Use(Node.DrainBody.class, "post", ApiPaths.NODES + "/{id}/drain", true),
        new Use(Node.Accepted.class, "post", ApiPaths.NODES + "/{id}/drain", false),
        new Use(Node.Accepted.class, "post", ApiPaths.NODES + "/{id}/uncordon", false),
        new Use(Me.class, "get", ApiPaths.ME, false),
        new Use(Users.UserList.class, "get", ApiPaths.USERS, false),
        new Use(Users.NewUser.class, "post", ApiPaths.USERS, true),
        new Use(Users.User.class, "post", ApiPaths.USERS, false),
        new Use(Users.NewToken.class, "post", ApiPaths.USERS + "/{id}/tokens", true),
        new Use(Users.IssuedToken.class, "post", ApiPaths.USERS + "/{id}/tokens", false),
        new Use(Catalogue.OfferingList.class, "get", ApiPaths.OFFERINGS, false),
        new Use(Catalogue.NewOffering.class, "post", ApiPaths.OFFERINGS, true),
        new Use(Catalogue.Offering.class, "post", ApiPaths.OFFERINGS, false),
        new Use(Catalogue.ImageList.class, "get", ApiPaths.IMAGES, false),
        new Use(Catalogue.NewImage.class, "post", ApiPaths.IMAGES, true),
        new Use(Catalogue.Image.class, "post", ApiPaths.IMAGES, false),
        new Use(StoragePool.NewPool.class, "post", ApiPaths.STORAGE_POOLS, true),
        new Use(StoragePool.class, "post", ApiPaths.STORAGE_POOLS, false),
        new Use(StoragePool.class, "get", ApiPaths.STORAGE_POOLS + "/{id}", false),
        new Use(Class.forName("io.gshare.cli.login.LoopbackSignIn$TokenRequest"), "post", "/auth/cli/token", true),
        new Use(Class.forName("io.gshare.cli.login.LoopbackSignIn$CliToken"), "post", "/auth/cli/token", false),
        new Use(Class.forName("io.gshare.cli.catalogue.CatalogueCommands$Images$PrepullBody"), "post",
            ApiPaths.IMAGES + "/{id}/prepull", true),
        new Use(Class.forName("io.gshare.cli.catalogue.CatalogueCommands$Images$PrepullAccepted"), "post",
            ApiPaths.IMAGES + "/{id}/prepull", false),
        new Use(Class.forName("io.gshare.cli.catalogue.CatalogueCommands$NodePools$PoolNodes"), "put",
            ApiPaths.NODE_POOLS + "/{id}/nodes", true));
    List<String> undeclared = new ArrayList<>();
    for (Use use : uses) {
      JsonNode operation = doc.path("paths").path(use.path()).path(use.method());
      assertThat(operation.isMissingNode()).as(use.method() + " " + use.path()).isFalse();
      JsonNode schema = use.request() ? content(operation.path("requestBody")) : success(operation);
      assertThat(schema).as("schema of " + use).isNotNull();
      check(doc, use.type(), schema, use.method() + " " + use.path(), undeclared);
    }
    // The problem document every refusal carries.
    check(doc, ApiProblemException.ApiProblem.class,
        doc.at("/components/schemas/Problem"), "Problem", undeclared);
    assertThat(undeclared).isEmpty();
  }

  private static JsonNode success(JsonNode operation) {
    for (var it = operation.path("responses").fields(); it.hasNext();) {
      var response = it.next();
      if (response.getKey().startsWith("2")) {
        return content(response.getValue());
      }
    }
    return null;
  }

  private static JsonNode content(JsonNode holder) {
    for (JsonNode media : holder.path("content")) {
      return media.path("schema");
    }
    return null;
  }

  private static JsonNode resolve(JsonNode doc, JsonNode schema) {
    JsonNode current = schema;
    while (current.has("$ref")) {
      current = doc.at(current.get("$ref").asText().substring(1));
    }
    if (current.has("allOf")) {
      ObjectNode merged = JSON.createObjectNode();
      ObjectNode properties = merged.putObject("properties");
      for (JsonNode part : current.get("allOf")) {
        resolve(doc, part).path("properties").fields().forEachRemaining(f -> properties.set(f.getKey(), f.getValue()));
      }
      return merged;
    }
    return current;
  }

  private static void check(JsonNode doc, Class<?> type, JsonNode schema, String where, List<String> undeclared) {
    JsonNode resolved = resolve(doc, schema);
    JsonNode properties = resolved.path("properties");
    var snake = new PropertyNamingStrategies.SnakeCaseStrategy();
    for (var component : type.getRecordComponents()) {
      String name = snake.translate(component.getName());
      if (!properties.has(name)) {
        undeclared.add(where + ": " + type.getSimpleName() + "." + name + " (declared: " + properties.size() + " "
            + iterable(properties.fieldNames()) + ")");
        continue;
      }
      Class<?> member = component.getType();
      JsonNode memberSchema = properties.get(name);
      if (List.class.isAssignableFrom(member)) {
        var argument = ((ParameterizedType) component.getGenericType()).getActualTypeArguments()[0];
        if (argument instanceof Class<?> element && element.isRecord()) {
          check(doc, element, resolve(doc, memberSchema).path("items"), where + " " + name + "[]", undeclared);
        }
      } else if (member.isRecord()) {
        check(doc, member, memberSchema, where + " " + name, undeclared);
      }
    }
  }

  private static List<String> iterable(Iterator<String> names) {
    List<String> all = new ArrayList<>();
    names.forEachRemaining(all::add);
    return all;
  }

  private static Run run(Path launcher, Map<String, String> env, String... args) throws Exception {
    return runWithInput(launcher, env, "", args);
  }

  private static Run runWithInput(Path launcher, Map<String, String> env, String input, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(launcher.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    Path err = Files.createTempFile("gshare", ".err");
    Process process = builder.redirectError(err.toFile()).start();
    process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), out, Files.readString(err));
  }
}
