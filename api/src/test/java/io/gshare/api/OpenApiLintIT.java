package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The served OpenAPI document passes Redocly's recommended rules, with every operation declaring a 4xx, without an
 * error or a warning. The linter is the pinned {@code @redocly/cli} of {@code api/openapi-lint} (installed by
 * {@code hack/tools.sh}), passed as {@code gshare.redocly.cli}.
 */
class OpenApiLintIT extends ApiIntegrationTest {

  private static final Path LINT_DIR = Path.of("openapi-lint");
  private static final Path DOCUMENT = Path.of("target", "openapi.json");

  @Autowired ObjectMapper json;

  @Test
  void theServedDocumentLintsClean() throws Exception {
    Path redocly = Path.of(System.getProperty("gshare.redocly.cli",
        LINT_DIR.resolve("node_modules/.bin/redocly").toString()));
    assertThat(redocly).as("the pinned Redocly CLI: run hack/tools.sh").isExecutable();
    ApiResponse served = get("/api/v1/openapi", tokenFor(newUser("user")));
    assertThat(served.status()).isEqualTo(200);
    Files.createDirectories(DOCUMENT.getParent());
    Files.writeString(DOCUMENT, served.text());

    Path report = Path.of("target", "openapi-lint.json");
    ProcessBuilder command = new ProcessBuilder(redocly.toAbsolutePath().toString(), "lint",
        DOCUMENT.toAbsolutePath().toString(), "--config", LINT_DIR.resolve("redocly.yaml").toAbsolutePath().toString(),
        "--format=json", "--max-problems=1000")
        .redirectOutput(report.toFile())
        .redirectError(Path.of("target", "openapi-lint.log").toFile());
    // A test asks nothing of the network: no telemetry, no update check.
    command.environment().put("REDOCLY_TELEMETRY", "off");
    command.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
    Process lint = command.start();
    assertThat(lint.waitFor(3, TimeUnit.MINUTES)).as("redocly lint finished").isTrue();

    JsonNode findings = json.readTree(report.toFile());
    List<String> problems = new ArrayList<>();
    findings.path("problems").forEach(p -> problems.add(p.path("severity").asText() + " " + p.path("ruleId").asText()
        + " at " + p.at("/location/0/pointer").asText() + ": " + p.path("message").asText()));
    assertThat(problems).as("Redocly's findings on %s (log: target/openapi-lint.log)", DOCUMENT).isEmpty();
    assertThat(lint.exitValue()).as(log()).isZero();
  }

  private static String log() throws IOException {
    return Files.readString(Path.of("target", "openapi-lint.log"), StandardCharsets.UTF_8);
  }
}
