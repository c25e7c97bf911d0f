package io.gshare.core.placement;

import io.gshare.core.catalogue.OfferingRepository.Offering;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.policy.Policy;
import io.gshare.workflows.session.SessionState;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** Whether a user may start a session now: the policy's concurrency limit and the credits for a first minute. */
@Component
public class Admission {

  private static final String[] LIVE_STATES = SessionState.LIVE.stream().map(SessionState::wireName).toArray(String[]::new);

  private final JdbcClient jdbc;
  private final CreditLedger ledger;

  Admission(JdbcClient jdbc, CreditLedger ledger) {
    this.jdbc = jdbc;
    this.ledger = ledger;
  }

  /** The user's team, or null for a user in none (or a disabled user). */
  public String teamOf(String userId) {
    return jdbc.sql("select team_id from users where id = :u and not disabled").param("u", userId)
        .query(String.class).optional().orElse(null);
  }

  /** The team's node pools; empty for no team. */
  public List<String> poolsOf(String teamId) {
    return teamId == null ? List.of()
        : jdbc.sql("select id from node_pools where team_id = :t").param("t", teamId).query(String.class).list();
  }

  /**
   * Refuses with 409 quota_exceeded or 402 insufficient_credits.
   *
   * @param sessionId the session being admitted (not counted against itself), or null for a dry run
   * @param serialize hold a per-user lock to the end of the transaction, so two racing creates count each other
   */
  public void admit(String userId, String sessionId, Offering offering, Policy policy, boolean serialize) {
    if (policy.maxConcurrentSessions() != null) {
      if (serialize) {
        jdbc.sql("select pg_advisory_xact_lock(hashtext(:key))").param("key", "gshare-user:" + userId)
            .query((rs, n) -> 1).list();
      }
      int live = jdbc.sql("select count(*) from sessions where user_id = :u and state = any(:states)"
              + (sessionId == null ? "" : " and id <> :s"))
          .param("u", userId).param("states", LIVE_STATES)
          .params(sessionId == null ? Map.of() : Map.of("s", sessionId))
          .query(Integer.class).single();
      if (live >= policy.maxConcurrentSessions()) {
        throw new GshareException(ProblemCode.QUOTA_EXCEEDED, "your policy allows " + policy.maxConcurrentSessions()
            + " concurrent session(s) and you have " + live, Map.of("limit", policy.maxConcurrentSessions()));
      }
    }
    BigDecimal balance = ledger.balance(CreditLedger.accountIdOf(userId));
    BigDecimal firstMinute = offering.pricePerHour().divide(BigDecimal.valueOf(60), 6, RoundingMode.UP);
    BigDecimal needed = policy.minBalanceToStart().max(firstMinute);
    if (needed.signum() > 0 && balance.compareTo(needed) < 0) {
      throw new GshareException(ProblemCode.INSUFFICIENT_CREDITS, "starting " + offering.name() + " needs a balance of "
          + needed.stripTrailingZeros().toPlainString() + " credits; yours is " + balance.stripTrailingZeros().toPlainString(),
          Map.of("balance", balance, "required", needed));
    }
  }
}
