package io.gshare.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.cli.support.CliException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigStoreTest {

  @TempDir Path home;

  @Test
  void contextsSurviveAWriteAndTheFileIsTheUsersAlone() throws Exception {
    ConfigStore store = new ConfigStore(home.resolve("gshare"));
    assertThat(store.load().contexts()).isEmpty();
    CliConfig config = CliConfig.empty()
        .with("prod", new CliConfig.Context("https://gshare.example.com", "t-prod", "ada@example.com",
            Instant.parse("2027-01-01T00:00:00Z")), true)
        .with("staging", new CliConfig.Context("https://staging.example.com", "t-staging", "ada@example.com", null),
            false);
    store.save(config);

    CliConfig read = store.load();
    assertThat(read.currentContext()).isEqualTo("prod");
    assertThat(read.context("staging").orElseThrow().token()).isEqualTo("t-staging");
    assertThat(read.context("prod").orElseThrow().tokenExpiresAt()).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file()))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("gshare"))))
        .isEqualTo("rwx------");
    try (var files = Files.list(home.resolve("gshare"))) {
      assertThat(files).containsExactly(store.file());
    }
  }

  @Test
  void removingTheCurrentContextMakesAnotherCurrent() {
    CliConfig config = CliConfig.empty()
        .with("a", new CliConfig.Context("https://a.example.com", "ta", null, null), true)
        .with("b", new CliConfig.Context("https://b.example.com", "tb", null, null), false);
    assertThat(config.without("a").currentContext()).isEqualTo("b");
    assertThat(config.without("b").currentContext()).isEqualTo("a");
    assertThat(config.without("a").without("b").currentContext()).isNull();
  }

  @Test
  void theConfigDirFollowsTheEnvironment() {
    assertThat(ConfigStore.defaultDir(Map.of("GSHARE_CONFIG_DIR", "/etc/g")::get)).isEqualTo(Path.of("/etc/g"));
    assertThat(ConfigStore.defaultDir(Map.of("XDG_CONFIG_HOME", "/x")::get)).isEqualTo(Path.of("/x/gshare"));
    assertThat(ConfigStore.defaultDir(name -> null))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".config", "gshare"));
  }

  @Test
  void aDamagedFileIsReportedNotIgnored() throws Exception {
    ConfigStore store = new ConfigStore(home);
    Files.writeString(store.file(), "contexts: [not, a, map");
    assertThatThrownBy(store::load).isInstanceOf(CliException.class).hasMessageContaining(store.file().toString());
  }
}
