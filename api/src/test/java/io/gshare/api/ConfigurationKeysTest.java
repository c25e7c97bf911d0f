package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaAnnotation;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.gshare.api.alert.AlertProperties;
import io.gshare.api.cluster.ClusterWorkerProperties;
import io.gshare.api.cluster.TokenRotationProperties;
import io.gshare.api.dev.DevProperties;
import io.gshare.api.node.NodeProperties;
import io.gshare.api.security.SecurityProperties;
import io.gshare.api.session.IdleReaperProperties;
import io.gshare.api.session.MeteringProperties;
import io.gshare.api.session.SessionProperties;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.api.temporal.WorkerProperties;
import io.gshare.api.volume.VolumeProperties;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ClassUtils;
import org.springframework.validation.annotation.Validated;

/**
 * Every gShare setting is bound to a validated record that rejects unknown keys, so a mistyped key or a
 * bad value stops the api at start; docs/configuration.md lists exactly the keys those records bind.
 */
class ConfigurationKeysTest {

  private static final Path DOC = Path.of("..", "docs", "configuration.md");
  private static final Pattern DOC_KEY = Pattern.compile("`(gshare\\.[a-z0-9.-]+)`");

  /** The records as the api registers them, over application.yaml; key-dir has no usable default in a test. */
  private final ApplicationContextRunner api = new ApplicationContextRunner()
      .withInitializer(new ConfigDataApplicationContextInitializer())
      .withUserConfiguration(Records.class)
      .withPropertyValues("gshare.security.key-dir=target/keys");

  @Configuration(proxyBeanMethods = false)
  @ConfigurationPropertiesScan("io.gshare.api")
  static class Records {}

  @Test
  void everyGshareRecordIsValidatedAndRejectsUnknownKeys() {
    assertThat(records()).hasSizeGreaterThanOrEqualTo(8).allSatisfy(type -> {
      assertThat(type.isRecord()).as("%s is a record", type).isTrue();
      assertThat(type.isAnnotationPresent(Validated.class)).as("%s is @Validated", type).isTrue();
      assertThat(type.getAnnotation(ConfigurationProperties.class).ignoreUnknownFields())
          .as("%s rejects unknown keys", type).isFalse();
    });
  }

  @Test
  void theDefaultsAreTheOnesTheApiAlwaysHad() {
    api.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(SessionProperties.class)).isEqualTo(new SessionProperties("", "", Duration.ofSeconds(60), "", "https", 0));
      assertThat(context.getBean(MeteringProperties.class)).isEqualTo(new MeteringProperties(true, Duration.ofSeconds(60)));
      assertThat(context.getBean(NodeProperties.class))
          .isEqualTo(new NodeProperties(Duration.ofSeconds(300), Duration.ofSeconds(30)));
      assertThat(context.getBean(ClusterWorkerProperties.class)).isEqualTo(new ClusterWorkerProperties(
          ClusterWorkerProperties.Deploy.KUBERNETES, null, "registry.example.com/gshare", "IfNotPresent", null, false,
          false, null, 15,
          300, Duration.ofSeconds(90),
          new ClusterWorkerProperties.Local(null, null, null, false), new ClusterWorkerProperties.Agent(false)));
      assertThat(context.getBean(TemporalProperties.class))
          .isEqualTo(new TemporalProperties("127.0.0.1:7233", "default", Duration.ofSeconds(5), 600, "", "", "", "", "", ""));
      assertThat(context.getBean(SecurityProperties.class)).isEqualTo(new SecurityProperties("gshare",
          Path.of("target/keys"), SecurityProperties.KeyStoreKind.FILE, true, Duration.ofDays(7), Duration.ofDays(30), Duration.ofDays(365),
          Duration.ofSeconds(60), "gshare_token"));
      assertThat(context.getBean(WorkerProperties.class)).isEqualTo(new WorkerProperties(true));
      assertThat(context.getBean(DevProperties.class)).isEqualTo(new DevProperties(null, false));
      assertThat(context.getBean(VolumeProperties.class)).isEqualTo(new VolumeProperties(Duration.ofHours(24), ""));
      assertThat(context.getBean(IdleReaperProperties.class)).isEqualTo(new IdleReaperProperties(true,
          Duration.ofSeconds(60), Duration.ofMinutes(2), Duration.ofSeconds(60), "", ""));
      assertThat(context.getBean(TokenRotationProperties.class)).isEqualTo(
          new TokenRotationProperties(true, Duration.ofHours(24), Duration.ofDays(30),
              Duration.ofMinutes(3), Duration.ofSeconds(10), Duration.ofDays(2), Duration.ofSeconds(60)));
    });
  }

  @Test
  void theReclaimGraceComesFromGshareVolumeReclaimGraceHours() {
    api.withPropertyValues("GSHARE_VOLUME_RECLAIM_GRACE_HOURS=2").run(context ->
        assertThat(context.getBean(VolumeProperties.class).reclaimGrace()).isEqualTo(Duration.ofHours(2)));
  }

  @Test
  void noAlertWebhookByDefaultAndOneFromGshareAlertsWebhookUrl() {
    api.run(context -> assertThat(context.getBean(AlertProperties.class).webhookUrl()).isNull());
    api.withPropertyValues("GSHARE_ALERTS_WEBHOOK_URL=https://alerts.example.com/hook").run(context ->
        assertThat(context.getBean(AlertProperties.class).webhookUrl())
            .isEqualTo("https://alerts.example.com/hook"));
  }

  @Test
  void theDeployerKindBindsFromItsKebabName() {
    api.withPropertyValues("gshare.cluster-worker.deploy=local-process", "gshare.cluster-worker.local.jar=worker.jar")
        .run(context -> assertThat(context.getBean(ClusterWorkerProperties.class).deploy())
            .isEqualTo(ClusterWorkerProperties.Deploy.LOCAL_PROCESS));
  }

  @Test
  void theStaleTimeComesFromGshareNodeStaleSecAndStillFromTheSeedsNodeStaleSec() {
    api.withPropertyValues("NODE_STALE_SEC=120").run(context ->
        assertThat(context.getBean(NodeProperties.class).staleAfter()).isEqualTo(Duration.ofSeconds(120)));
    api.withPropertyValues("GSHARE_NODE_STALE_SEC=90", "NODE_STALE_SEC=120").run(context ->
        assertThat(context.getBean(NodeProperties.class).staleAfter()).isEqualTo(Duration.ofSeconds(90)));
  }

  @ParameterizedTest
  @CsvSource({
      "gshare.sessions.auth-urll",
      "gshare.sessions.recovery-retry-intervall",
      "gshare.metering.retry",
      "gshare.node.stale-after-seconds",
      "gshare.cluster-worker.local.jarfile",
      "gshare.cluster-worker.deployer",
      "gshare.temporal.adress",
      "gshare.security.key-directory",
      "gshare.worker.enable",
      "gshare.dev.admin-token",
      "gshare.volumes.reclaim-grace-hours",
  })
  void anUnknownKeyStopsTheStart(String key) {
    api.withPropertyValues(key + "=x").run(context -> {
      assertThat(context).hasFailed();
      assertThat(messages(context.getStartupFailure())).contains(key).contains("unbound");
    });
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {
      "gshare.sessions.recovery-retry-interval=0s; recoveryRetryInterval",
      "gshare.sessions.auth-url=verify.example.com; authUrl",
      "gshare.metering.retry-interval=-60s; retryInterval",
      "gshare.node.stale-after=0s; staleAfter",
      "gshare.node.sweep-interval=; gshare.node.sweep-interval",
      "gshare.cluster-worker.deploy=k8s; gshare.cluster-worker.deploy",
      "gshare.cluster-worker.deploy=local-process; gshare.cluster-worker.local.jar",
      "gshare.cluster-worker.inventory-interval-seconds=0; inventoryIntervalSeconds",
      "gshare.cluster-worker.volume-sync-interval-seconds=0; volumeSyncIntervalSeconds",
      "gshare.cluster-worker.image-pull-policy=Sometimes; imagePullPolicy",
      "gshare.cluster-worker.control-plane-url=gshare.example.com; controlPlaneUrl",
      "gshare.temporal.address=http://temporal:7233; address",
      "gshare.temporal.sticky-schedule-to-start=0s; stickyScheduleToStart",
      "gshare.security.user-token-ttl=400d; user-token-ttl must not exceed max-user-token-ttl",
      "gshare.security.session-cookie=gshare token; sessionCookie",
      "gshare.volumes.reclaim-grace=-1h; reclaimGrace",
      "gshare.alerts.webhook-url=alerts.example.com/hook; gshare.alerts.webhook-url must be an http(s) URL",
      "gshare.alerts.delivery-interval=0s; deliveryInterval",
  })
  void anInvalidValueStopsTheStart(String setting, String named) {
    api.withPropertyValues(setting).run(context -> {
      assertThat(context).hasFailed();
      assertThat(messages(context.getStartupFailure())).contains(named);
    });
  }

  @Test
  void docsConfigurationListsExactlyTheKeysTheRecordsBind() throws IOException {
    Set<String> bound = new TreeSet<>();
    for (Class<?> type : records()) {
      bound.addAll(keysOf(type, type.getAnnotation(ConfigurationProperties.class).prefix()));
    }
    Set<String> documented = documentedKeys();

    assertThat(bound).contains("gshare.sessions.auth-url", "gshare.cluster-worker.local.jar", "gshare.node.stale-after");
    assertThat(bound).as("keys missing from %s", DOC).isSubsetOf(documented);
    assertThat(documented).as("keys in %s that no record binds", DOC).isSubsetOf(bound);
  }

  @Test
  void everyVariableApplicationYamlReadsIsDocumented() throws IOException {
    String yaml = new String(getClass().getResourceAsStream("/application.yaml").readAllBytes());
    String doc = Files.readString(DOC);
    Matcher variable = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)").matcher(yaml);
    List<String> variables = new ArrayList<>();
    while (variable.find()) {
      variables.add(variable.group(1));
    }
    assertThat(variables).contains("GSHARE_DB_URL", "GSHARE_NODE_STALE_SEC", "NODE_STALE_SEC")
        .allSatisfy(name -> assertThat(doc).as("%s documents %s", DOC, name).contains("`" + name + "`"));
  }

  /** A setting read around its record (@Value, a @Scheduled placeholder) would skip its validation again. */
  @Test
  void noCodeReadsAGshareSettingAroundItsRecord() {
    List<String> readers = new ArrayList<>();
    for (JavaClass type : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.gshare")) {
      Stream.concat(type.getFields().stream().flatMap(f -> f.getAnnotations().stream()),
              type.getCodeUnits().stream().flatMap(unit -> Stream.concat(unit.getAnnotations().stream(),
                  unit.getParameters().stream().flatMap(p -> p.getAnnotations().stream()))))
          .filter(a -> a.getRawType().isEquivalentTo(Value.class) || a.getRawType().isEquivalentTo(Scheduled.class))
          .filter(ConfigurationKeysTest::namesAGshareKey)
          .forEach(a -> readers.add(type.getName() + ": @" + a.getRawType().getSimpleName() + a.getProperties()));
    }
    assertThat(readers).isEmpty();
  }

  private static boolean namesAGshareKey(JavaAnnotation<?> annotation) {
    return annotation.getProperties().values().stream().anyMatch(v -> String.valueOf(v).contains("gshare."));
  }

  /** The api's @ConfigurationProperties records under gshare.*, found the way a new one would be. */
  static List<Class<?>> records() {
    var scanner = new ClassPathScanningCandidateComponentProvider(false);
    scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
    List<Class<?>> records = scanner.findCandidateComponents("io.gshare").stream()
        .<Class<?>>map(candidate -> ClassUtils.resolveClassName(candidate.getBeanClassName(), null))
        .filter(type -> type.getAnnotation(ConfigurationProperties.class).prefix().startsWith("gshare."))
        .toList();
    assertThat(records).as("the scan finds the records").contains(SessionProperties.class, MeteringProperties.class);
    return records;
  }

  /** prefix.kebab-case-of-each-component, nested records flattened. */
  static List<String> keysOf(Class<?> type, String prefix) {
    List<String> keys = new ArrayList<>();
    for (RecordComponent component : type.getRecordComponents()) {
      String key = prefix + "." + component.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
      if (component.getType().isRecord() && component.getType().getPackageName().startsWith("io.gshare")) {
        keys.addAll(keysOf(component.getType(), key));
      } else {
        keys.add(key);
      }
    }
    return keys;
  }

  /** The gshare.* keys in the key column (first cell) of the doc's tables. */
  static Set<String> documentedKeys() throws IOException {
    Set<String> keys = new TreeSet<>();
    for (String line : Files.readAllLines(DOC)) {
      String[] cells = line.split("\\|");
      if (line.startsWith("|") && cells.length > 2) {
        Matcher key = DOC_KEY.matcher(cells[1]);
        while (key.find()) {
          keys.add(key.group(1));
        }
      }
    }
    return keys;
  }

  private static String messages(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }
}
