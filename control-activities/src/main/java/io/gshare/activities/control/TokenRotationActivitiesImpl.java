package io.gshare.activities.control;

import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import io.gshare.core.cluster.OperatorTokenRepository;
import io.gshare.workflows.cluster.OperatorTokenState;
import io.gshare.workflows.cluster.TokenRotationActivities;
import io.gshare.workflows.common.TaskQueues;
import java.time.Instant;
import java.util.List;

/** The rotation's Postgres side: which clusters, what their workers use, the alert. */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class TokenRotationActivitiesImpl implements TokenRotationActivities {

  private final OperatorTokenRepository tokens;
  private final Alerts alerts;

  public TokenRotationActivitiesImpl(OperatorTokenRepository tokens, Alerts alerts) {
    this.tokens = tokens;
    this.alerts = alerts;
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
    alerts.raise(AlertName.OPERATOR_TOKEN_EXPIRING, clusterId, clusterId, reason);
  }

  private static long millis(Instant instant) {
    return instant == null ? 0 : instant.toEpochMilli();
  }
}
