package io.gshare.clusterworker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenFileTest {

  @TempDir Path dir;

  @Test
  void picksUpARotatedTokenWithoutRestart() throws Exception {
    Path file = dir.resolve("internal-jwt");
    Files.writeString(file, "first.token.value\n");
    TokenFile token = new TokenFile(file);
    assertThat(token.token()).isEqualTo("first.token.value");

    Files.writeString(file, "second.token.value");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
    assertThat(token.token()).isEqualTo("second.token.value");
  }

  @Test
  void aMissingOrEmptyFileSaysWhatToMount() throws Exception {
    TokenFile missing = new TokenFile(dir.resolve("absent"));
    assertThatThrownBy(missing::token).hasMessageContaining("gshare-operator-internal-jwt");
    Path empty = Files.writeString(dir.resolve("empty"), "  ");
    assertThatThrownBy(new TokenFile(empty)::token).hasMessageContaining("is empty");
  }
}
