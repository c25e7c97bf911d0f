package io.gshare.activities.control;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.cluster.OperatorTokenRepository;
import io.gshare.workflows.cluster.OperatorTokenState;
import io.gshare.workflows.cluster.TokenRotationActivities;
import java.time.Instant;
import java.util.List;

/** The rotation's Postgres side: which clusters, what their workers use, the alert. */
public class TokenRotationActivitiesImpl implements TokenRotationActivities {

  static final String ALERT = "operator_token.expiring";

  private final OperatorTokenRepository tokens;
  private final AuditLog audit;

  public TokenRotationActivitiesImpl(OperatorTokenRepository tokens, AuditLog audit) {
    this.tokens = tokens;
    this.audit = audit;
  }

  @Override
  public List<String> rotatableClusters() {
    return tokens.rotatable();
  }

  @Override
  public OperatorTokenState tokenState(String clusterId) {
    return tokens.find(clusterId)
        .map(r -> new OperatorTokenState(clusterId, r.jti(), millis(r.expiresAt()), r.seenJti(), millis(r.seenExpiresAt())))
        .orElse(new OperatorTokenState(clusterId, null, 0, null, 0));
  }

  @Override
  public void alertExpiring(String clusterId, String reason) {
    audit.alert(ALERT, "cluster", clusterId, reason);
  }

  private static long millis(Instant instant) {
    return instant == null ? 0 : instant.toEpochMilli();
  }
}
