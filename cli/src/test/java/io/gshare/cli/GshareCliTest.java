package io.gshare.cli;


import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.gshare.cli.config.CliConfig;
import io.gshare.cli.config.ConfigStore;
import io.gshare.cli.support.Terminal;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command tree, its help and its exit codes, against a local HTTP peer that answers as the API would. */
class GshareCliTest {

  @TempDir Path configDir;

  private HttpServer api;
  private final AtomicReference<String> lastRequest = new AtomicReference<>();

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void startPeer() throws Exception {
    api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    api.createContext("/", exchange -> {
      lastRequest.set(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
          + exchange.getRequestHeaders().getFirst("Authorization") + " "
          + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      String path = exchange.getRequestURI().getPath();
      int status;
      String type;
      String body;
      if (path.equals("/api/v1/nodes/nod_1")) {
        status = 409;
        type = "application/problem+json";
        body = "{\"type\":\"urn:gshare:problem:node_busy\",\"title\":\"Node busy\",\"status\":409,"
            + "\"detail\":\"node nod_1 still holds sessions ses_1, ses_2\",\"code\":\"node_busy\"}";
      } else if (path.equals("/api/v1/volumes")) {
        status = 422;
        type = "application/problem+json";
        body = "{\"title\":\"Validation failed\",\"status\":422,\"detail\":\"the request body has invalid fields\","
            + "\"code\":\"validation_failed\",\"errors\":[{\"field\":\"size_gb\",\"message\":\"must be at least 1\"}]}";
      } else if (path.equals("/api/v1/gpus")) {
        status = 502;
        type = "text/html";
        body = "<html>bad gateway</html>";
      } else {
        status = 200;
        type = "application/json";
        body = "{\"items\":[{\"id\":\"nod_1\",\"hostname\":\"gpu-node-1\",\"cluster_id\":\"clu_1\",\"liveness\":\"offline\","
            + "\"gpus\":[]}]}";
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    api.start();
    new ConfigStore(configDir).save(CliConfig.empty().with("lab", new CliConfig.Context(
        "http://127.0.0.1:" + api.getAddress().getPort(), "t-lab", "ada@example.com", null), true));
  }

  @AfterEach
  void stopPeer() {
    api.stop(0);
  }

  private Run gshare(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CliEnv env = new CliEnv(new Terminal(new PrintWriter(out, true), new PrintWriter(err, true), false, 0),
        new ConfigStore(configDir), name -> null, url -> false, Duration.ofMillis(10));
    return new Run(GshareCli.run(env, args), out.toString(), err.toString());
  }

  @Test
  void anApiRefusalIsItsDetailAndCodeOnStderrAndExit1() {
    Run run = gshare("nodes", "delete", "gpu-node-1");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(run.err()).isEqualTo("error: node nod_1 still holds sessions ses_1, ses_2 (409 node_busy)\n");
    assertThat(run.out()).isEmpty();
    // The hostname was resolved to the node's id, and the call carried the context's token.
    assertThat(lastRequest.get()).startsWith("DELETE /api/v1/nodes/nod_1 Bearer t-lab");
  }

  @Test
  void aValidationFailureNamesEachField() {
    Run run = gshare("volumes", "create", "--name", "data", "--size", "0");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(run.err()).contains("(422 validation_failed)").contains("  size_gb: must be at least 1");
    assertThat(lastRequest.get()).contains("\"size_gb\":0").contains("\"name\":\"data\"");
  }

  @Test
  void aVolumeWithoutASizeIsAUsageErrorAndSendsNothing() {
    Run run = gshare("volumes", "create", "--name", "data");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(run.err()).contains("--size").contains("Usage: gshare volumes create");
    assertThat(lastRequest.get()).isNull();
  }

  @Test
  void anAnswerThatIsNoProblemDocumentIsStillSaidInWords() {
    Run run = gshare("gpus", "list");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(run.err()).contains("GET /api/v1/gpus answered 502 without a problem document");
  }

  @Test
  void anUnreachableServerSaysWhichAndExits1() {
    api.stop(0);
    Run run = gshare("sessions", "list");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(run.err()).startsWith("error: cannot reach the API at http://127.0.0.1:");
  }

  @Test
  void notSignedInSaysHowToSignIn() {
    Run run = gshare("--context", "nowhere", "sessions", "list");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_FAILED);
    assertThat(run.err()).contains("no context 'nowhere'");
  }

  @Test
  void usageErrorsExit2WithTheUsage() {
    Run run = gshare("operations", "list", "--object", "session");
    assertThat(run.exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(run.err()).contains("--object must be KIND/ID").contains("Usage: gshare operations list");
    assertThat(gshare("sessions", "wait", "ses_1", "--for", "sleeping").exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(gshare("no-such-command").exit()).isEqualTo(GshareCli.EXIT_USAGE);
    assertThat(lastRequest.get()).isNull();
  }

  @Test
  void everyCommandsHelpDescribesItAndShowsExamples() {
    CommandLine root = GshareCli.commandLine(new CliEnv(new Terminal(new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()), false, 0), new ConfigStore(configDir), name -> null, url -> false,
        Duration.ofSeconds(1)));
    List<CommandLine> all = new ArrayList<>();
    collect(root, all);
    assertThat(all).hasSizeGreaterThan(60);
    for (CommandLine command : all) {
      if (command.getCommandName().equals("help")) {
        continue;
      }
      String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertThat(command.getCommandSpec().usageMessage().description()).as(command.getCommandSpec().qualifiedName())
          .isNotEmpty();
      if (command.getSubcommands().isEmpty()) {
        assertThat(help).as(command.getCommandSpec().qualifiedName()).contains("Examples:")
            .contains("  " + command.getCommandSpec().qualifiedName().split(" ")[0] + " ");
      }
      assertThat(command.getCommandSpec().findOption("--help")).as(command.getCommandSpec().qualifiedName()).isNotNull();
    }
    Run help = gshare("offerings", "get", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("gshare offerings get ID");
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    into.add(command);
    command.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
  }
}
