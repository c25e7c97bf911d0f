package io.gshare.api.temporalgateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RememberedTokensTest {

  private final List<String> verified = new ArrayList<>();
  private final AtomicLong nanos = new AtomicLong();
  private boolean detached;

  private final OperatorAuthenticator verifier = token -> {
    verified.add(token);
    if (detached || !token.startsWith("token-")) {
      throw new OperatorAuthenticator.Refused("cluster is not registered (or was detached)");
    }
    return "clu_" + token.substring("token-".length());
  };

  private final RememberedTokens remembered = new RememberedTokens(verifier, Duration.ofSeconds(5), nanos::get);

  @Test
  void aVerifiedTokenIsTakenWithoutVerifyingAgainUntilItsTimeIsUp() throws Exception {
    assertThat(remembered.clusterId("token-a")).isEqualTo("clu_a");
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    assertThat(remembered.clusterId("token-a")).isEqualTo("clu_a");
    assertThat(remembered.clusterId("token-b")).isEqualTo("clu_b");
    assertThat(verified).containsExactly("token-a", "token-b");

    // Five seconds on, the cluster detached meanwhile: the next call verifies again and is refused.
    detached = true;
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());
    assertThatThrownBy(() -> remembered.clusterId("token-a")).isInstanceOf(OperatorAuthenticator.Refused.class);
    assertThat(verified).containsExactly("token-a", "token-b", "token-a");
  }

  @Test
  void aRefusalIsNotRemembered() throws Exception {
    assertThatThrownBy(() -> remembered.clusterId("forged")).isInstanceOf(OperatorAuthenticator.Refused.class);
    assertThatThrownBy(() -> remembered.clusterId("forged")).isInstanceOf(OperatorAuthenticator.Refused.class);
    assertThat(verified).containsExactly("forged", "forged");
  }

  @Test
  void zeroVerifiesEveryCall() throws Exception {
    OperatorAuthenticator every = RememberedTokens.of(verifier, Duration.ZERO);
    every.clusterId("token-a");
    every.clusterId("token-a");
    assertThat(verified).containsExactly("token-a", "token-a");
  }
}
