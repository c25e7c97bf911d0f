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

  @Test
  void aSecretReadMidWriteKeepsThePreviousTokenAndTakesTheNewOneOnceWritten() throws Exception {
    Path file = dir.resolve("internal-jwt");
    Files.writeString(file, "first.token.value");
    TokenFile token = new TokenFile(file);
    assertThat(token.token()).isEqualTo("first.token.value");

    // A writer has truncated the file and not written yet.
    Files.writeString(file, "");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
    assertThat(token.token()).isEqualTo("first.token.value");

    // Halfway through: the header only.
    Files.writeString(file, "second.tok");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
    assertThat(token.token()).isEqualTo("first.token.value");

    // The kubelet's swap: the path missing for a moment.
    Files.delete(file);
    assertThat(token.token()).isEqualTo("first.token.value");

    // Done, with the same modification time as the partial write: still picked up.
    Files.writeString(file, "second.token.value");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
    assertThat(token.token()).isEqualTo("second.token.value");
  }

  @Test
  void onlyThreeNonEmptyBase64UrlPartsCountAsAToken() {
    assertThat(TokenFile.looksLikeJwt("eyJh.eyJz-_.c2ln")).isTrue();
    assertThat(TokenFile.looksLikeJwt("")).isFalse();
    assertThat(TokenFile.looksLikeJwt("eyJh.eyJz")).isFalse();
    assertThat(TokenFile.looksLikeJwt("eyJh.eyJz.")).isFalse();
    assertThat(TokenFile.looksLikeJwt("eyJh.ey Jz.c2ln")).isFalse();
  }
}
