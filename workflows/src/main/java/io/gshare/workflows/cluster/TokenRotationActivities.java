package io.gshare.workflows.cluster;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** Postgres side of the operator-token rotation. Runs on gshare-control. */
@ActivityInterface
public interface TokenRotationActivities {

  /** Clusters whose worker should hold a live token: attached, with a stored kubeconfig. */
  @ActivityMethod(name = "RotatableClusters")
  List<String> rotatableClusters();

  @ActivityMethod(name = "OperatorTokenState")
  OperatorTokenState tokenState(String clusterId);

  /** An admin alert ({@code operator_token.expiring}) about the cluster's token. */
  @ActivityMethod(name = "AlertOperatorToken")
  void alertExpiring(String clusterId, String reason);
}
