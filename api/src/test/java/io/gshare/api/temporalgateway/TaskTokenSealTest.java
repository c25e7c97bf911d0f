package io.gshare.api.temporalgateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TaskTokenSealTest {

  private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
  private static final byte[] UPSTREAM = "a task token as Temporal issues it".getBytes(StandardCharsets.UTF_8);
  private final TaskTokenSeal seal = new TaskTokenSeal(SECRET);

  @Test
  void aTokenSealedForAClusterUnsealsForItOnAnyReplicaWithTheSecret() {
    byte[] sealed = seal.seal("clu_a", UPSTREAM);
    assertThat(sealed).isNotEqualTo(UPSTREAM).hasSize(UPSTREAM.length + 1 + TaskTokenSeal.MAC_BYTES);
    assertThat(new TaskTokenSeal(SECRET.clone()).unseal("clu_a", sealed)).isEqualTo(UPSTREAM);
  }

  @Test
  void anotherClusterAnotherSecretOrOneFlippedBitIsRefused() {
    byte[] sealed = seal.seal("clu_b", UPSTREAM);
    assertThatThrownBy(() -> seal.unseal("clu_a", sealed)).isInstanceOf(TaskTokenSeal.ForeignTaskToken.class)
        .hasMessageContaining("another cluster's worker, not to clu_a");
    byte[] otherSecret = SECRET.clone();
    otherSecret[0] ^= 1;
    assertThatThrownBy(() -> new TaskTokenSeal(otherSecret).unseal("clu_b", sealed))
        .isInstanceOf(TaskTokenSeal.ForeignTaskToken.class);
    for (int i = 0; i < sealed.length; i++) {
      byte[] changed = sealed.clone();
      changed[i] ^= 0x10;
      int at = i;
      assertThatThrownBy(() -> seal.unseal("clu_b", changed)).as("bit flipped at byte %d", at)
          .isInstanceOf(TaskTokenSeal.ForeignTaskToken.class);
    }
  }

  @Test
  void anUpstreamTokenOrAnEmptyOneIsNoSealedToken() {
    assertThatThrownBy(() -> seal.unseal("clu_a", UPSTREAM)).isInstanceOf(TaskTokenSeal.ForeignTaskToken.class)
        .hasMessageContaining("not one this gateway handed out");
    assertThatThrownBy(() -> seal.unseal("clu_a", new byte[0])).isInstanceOf(TaskTokenSeal.ForeignTaskToken.class);
    assertThatThrownBy(() -> seal.unseal("clu_a", Arrays.copyOf(seal.seal("clu_a", UPSTREAM), 17)))
        .isInstanceOf(TaskTokenSeal.ForeignTaskToken.class);
  }

  @Test
  void aShortSecretOrABadClusterIdIsRefused() {
    assertThatThrownBy(() -> new TaskTokenSeal(new byte[31])).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 32 bytes");
    assertThatThrownBy(() -> seal.seal("not an id", UPSTREAM)).isInstanceOf(IllegalArgumentException.class);
  }
}
