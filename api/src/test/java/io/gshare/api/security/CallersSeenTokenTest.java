package io.gshare.api.security;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.cluster.OperatorTokenRepository;
import io.gshare.core.user.UserRepository;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The internal plane records the token a worker uses on every request, but writes only when it changes. */
class CallersSeenTokenTest {

  private final OperatorTokenRepository operatorTokens = mock(OperatorTokenRepository.class);
  private final Callers callers = new Callers(mock(Tokens.class), mock(UserRepository.class),
      mock(ClusterRepository.class), operatorTokens);

  @Test
  void aWorkersTokenIsWrittenOnceAndAgainOnlyWhenItChanges() {
    Instant exp = Instant.parse("2026-12-10T00:00:00Z");
    callers.seen("clu_a", "jti-1", exp);
    callers.seen("clu_a", "jti-1", exp);
    callers.seen("clu_a", "jti-1", exp);
    verify(operatorTokens, times(1)).seen("clu_a", "jti-1", exp);

    callers.seen("clu_a", "jti-2", exp);
    callers.seen("clu_b", "jti-1", exp);
    verify(operatorTokens).seen("clu_a", "jti-2", exp);
    verify(operatorTokens).seen("clu_b", "jti-1", exp);
  }

  @Test
  void aTokenWithoutJtiWritesNothing() {
    callers.seen("clu_a", null, Instant.EPOCH);
    verify(operatorTokens, never()).seen(anyString(), any(), any());
  }
}
