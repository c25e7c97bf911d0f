package io.gshare.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DevRuntimeOptions#parse}: no process is started. */
class DevRuntimeOptionsTest {

  @TempDir
  Path dir;

  private Path apiJar;
  private Path workerJar;
  private Path localDeployerJar;

  @BeforeEach
  void jars() throws IOException {
    apiJar = Files.createFile(dir.resolve("api.jar"));
    workerJar = Files.createFile(dir.resolve("worker.jar"));
    localDeployerJar = Files.createFile(dir.resolve("local-deployer.jar"));
  }

  /** Options that pass the file checks (an external Temporal: no CLI needed), then {@code extra}. */
  private String[] args(String... extra) {
    List<String> args = new ArrayList<>(List.of("--api-jar", apiJar.toString(), "--worker-jar", workerJar.toString(),
        "--local-deployer-jar", localDeployerJar.toString(),
        "--temporal-address", "127.0.0.1:7233", "--no-ingress"));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  @Test
  void theDemoDataIsSeededByDefault() {
    assertThat(DevRuntimeOptions.parse(args(), Map.of()).noDemo()).isFalse();
  }

  @Test
  void noDemoTakesNoValue() {
    DevRuntimeOptions options = DevRuntimeOptions.parse(args("--no-demo", "--http-port", "8081"), Map.of());
    assertThat(options.noDemo()).isTrue();
    assertThat(options.httpPort()).isEqualTo(8081);
    // Last on the line too.
    assertThat(DevRuntimeOptions.parse(args("--http-port", "8081", "--no-demo"), Map.of()).noDemo()).isTrue();
  }

  @Test
  void noDemoTakesAnExplicitValueAfterAnEqualsSign() {
    assertThat(DevRuntimeOptions.parse(args("--no-demo=true"), Map.of()).noDemo()).isTrue();
    assertThat(DevRuntimeOptions.parse(args("--no-demo=false"), Map.of()).noDemo()).isFalse();
  }

  @Test
  void theEnvironmentVariableSetsItAndTheFlagWins() {
    assertThat(DevRuntimeOptions.parse(args(), Map.of("GSHARE_DEV_NO_DEMO", "1")).noDemo()).isTrue();
    assertThat(DevRuntimeOptions.parse(args(), Map.of("GSHARE_DEV_NO_DEMO", "true")).noDemo()).isTrue();
    assertThat(DevRuntimeOptions.parse(args(), Map.of("GSHARE_DEV_NO_DEMO", "false")).noDemo()).isFalse();
    assertThat(DevRuntimeOptions.parse(args(), Map.of("GSHARE_DEV_NO_DEMO", "")).noDemo()).isFalse();
    assertThat(DevRuntimeOptions.parse(args("--no-demo=false"), Map.of("GSHARE_DEV_NO_DEMO", "1")).noDemo()).isFalse();
    assertThat(DevRuntimeOptions.parse(args("--no-demo"), Map.of("GSHARE_DEV_NO_DEMO", "0")).noDemo()).isTrue();
  }

  @Test
  void aValueThatIsNotABooleanIsRefused() {
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args("--no-demo=maybe"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--no-demo 'maybe' is not true or false");
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args(), Map.of("GSHARE_DEV_NO_DEMO", "sometimes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GSHARE_DEV_NO_DEMO 'sometimes' is not true or false");
  }

  @Test
  void theUsageNamesTheFlagAndItsVariable() {
    assertThat(DevRuntimeOptions.USAGE).contains("--no-demo").contains("GSHARE_DEV_NO_DEMO");
  }

  @Test
  void badOptionsAreRefusedWithTheProblemNamed() {
    assertThatThrownBy(() -> DevRuntimeOptions.parse(
            new String[] {"--http-port", "eighty", "--bogus", "x", "--temporal-address", "nope"}, Map.of()))
        .hasMessageContaining("--http-port 'eighty' is not a number")
        .hasMessageContaining("unknown option --bogus")
        .hasMessageContaining("--temporal-address 'nope' is not host:port");
  }

  @Test
  void theIngressNeedsAnExecutableNginxUnlessItIsTurnedOff() throws IOException {
    List<String> base = List.of("--api-jar", apiJar.toString(), "--worker-jar", workerJar.toString(),
        "--local-deployer-jar", localDeployerJar.toString(), "--temporal-address", "127.0.0.1:7233");
    Path missing = dir.resolve("no-nginx");
    assertThatThrownBy(() -> DevRuntimeOptions.parse(concat(base, "--nginx", missing.toString()), Map.of()))
        .hasMessageContaining(missing + " is not an executable nginx")
        .hasMessageContaining("--no-ingress");
    Path nginx = Files.createFile(dir.resolve("nginx"));
    assertThat(nginx.toFile().setExecutable(true)).isTrue();
    DevRuntimeOptions options = DevRuntimeOptions.parse(concat(base, "--nginx", nginx.toString()), Map.of());
    assertThat(options.noIngress()).isFalse();
    assertThat(options.ingressPort()).isEqualTo(8081);
    assertThat(options.nginx()).isEqualTo(nginx);
    assertThat(DevRuntimeOptions.parse(concat(base, "--nginx", nginx.toString()), Map.of("GSHARE_INGRESS_PORT", "9443"))
        .ingressPort()).isEqualTo(9443);
    assertThat(DevRuntimeOptions.parse(concat(base, "--nginx", missing.toString(), "--no-ingress"), Map.of()).noIngress()).isTrue();
    assertThatThrownBy(() -> DevRuntimeOptions.parse(concat(base, "--no-ingress", "--ingress-port", "x"), Map.of()))
        .hasMessageContaining("--ingress-port 'x' is not a number");
  }

  private static String[] concat(List<String> base, String... extra) {
    List<String> all = new ArrayList<>(base);
    all.addAll(List.of(extra));
    return all.toArray(String[]::new);
  }

  @Test
  void apiPropertiesRepeatAndMustBeKeyEqualsValue() {
    DevRuntimeOptions options = DevRuntimeOptions.parse(args("--api-property", "gshare.volumes.reclaim-grace=30s",
        "--api-property=gshare.rate-limits.user-commands-per-second=5"), Map.of());
    assertThat(options.apiProperties()).containsExactly("gshare.volumes.reclaim-grace=30s",
        "gshare.rate-limits.user-commands-per-second=5");
    assertThat(DevRuntimeOptions.parse(args(), Map.of()).apiProperties()).isEmpty();
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args("--api-property", "no-equals-sign"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--api-property 'no-equals-sign' is not key=value");
    assertThat(DevRuntimeOptions.USAGE).contains("--api-property");
  }

  @Test
  void withoutTheKubernetesToolsItSaysHowToGetThem() {
    // Under a directory with no .tools above it: every GPU cluster is a real Kubernetes from make tools.
    String before = System.getProperty("gshare.tools.dir");
    System.setProperty("gshare.tools.dir", dir.resolve("no-tools").toString());
    try {
      assertThatThrownBy(() -> DevRuntimeOptions.parse(args(), Map.of())).hasMessageContaining("make tools");
    } finally {
      if (before == null) {
        System.clearProperty("gshare.tools.dir");
      } else {
        System.setProperty("gshare.tools.dir", before);
      }
    }
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args("--kubernetes", "simulator"), Map.of()))
        .hasMessageContaining("unknown option --kubernetes");
  }

  @Test
  void theFaultProxyIsOffByDefaultAndASwitch() {
    assertThat(DevRuntimeOptions.parse(args(), Map.of()).faultProxy()).isFalse();
    assertThat(DevRuntimeOptions.parse(args("--fault-proxy"), Map.of()).faultProxy()).isTrue();
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args("--fault-proxy=perhaps"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--fault-proxy");
    assertThat(DevRuntimeOptions.USAGE).contains("--fault-proxy");
  }

  @Test
  void theStateFileIsTheFlagsThenTheBootstrapScriptsVariableThenTheDefault() {
    assertThat(DevRuntimeOptions.parse(args(), Map.of()).stateFile()).isEqualTo(Path.of(".gshare-dev/runtime.env"));
    assertThat(DevRuntimeOptions.parse(args(), Map.of("GSHARE_DEV_STATE", "/tmp/a.env")).stateFile())
        .isEqualTo(Path.of("/tmp/a.env"));
    assertThat(DevRuntimeOptions.parse(args("--state-file", "/tmp/b.env"), Map.of("GSHARE_DEV_STATE", "/tmp/a.env"))
        .stateFile()).isEqualTo(Path.of("/tmp/b.env"));
    assertThat(DevRuntimeOptions.USAGE).contains("--state-file").contains("GSHARE_DEV_STATE");
  }

  @Test
  void oneApiByDefaultAndReplicasBehindNginxOnRequest() throws IOException {
    assertThat(DevRuntimeOptions.parse(args(), Map.of()).apiReplicas()).isEqualTo(1);
    Path nginx = Files.createFile(dir.resolve("nginx"));
    assertThat(nginx.toFile().setExecutable(true)).isTrue();
    assertThat(DevRuntimeOptions.parse(args("--nginx", nginx.toString()), Map.of("GSHARE_DEV_API_REPLICAS", "3"))
        .apiReplicas()).isEqualTo(3);
    assertThat(DevRuntimeOptions.USAGE).contains("--api-replicas").contains("GSHARE_DEV_API_REPLICAS");
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args("--api-replicas", "5"), Map.of()))
        .hasMessageContaining("--api-replicas must be between 1 and 4");
    // --no-ingress (args()) leaves nginx unchecked for one api, not for replicas: nginx is their front.
    Path missing = dir.resolve("no-nginx");
    assertThatThrownBy(() -> DevRuntimeOptions.parse(args("--api-replicas", "2", "--nginx", missing.toString()),
        Map.of())).hasMessageContaining(missing + " is not an executable nginx, which runs in front of the api replicas");
    assertThat(DevRuntimeOptions.parse(args("--api-replicas=2", "--nginx", nginx.toString()),
        Map.of("GSHARE_DEV_API_REPLICAS", "3")).apiReplicas()).isEqualTo(2);
  }
}
