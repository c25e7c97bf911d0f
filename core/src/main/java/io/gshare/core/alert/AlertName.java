package io.gshare.core.alert;

/** The admin alerts gShare raises: their Alertmanager {@code alertname}, severity and the audit action beside them. */
public enum AlertName {
  NODE_OFFLINE("NodeOffline", "warning", "node.offline", "node"),
  OPERATOR_TOKEN_EXPIRING("OperatorTokenExpiring", "critical", "operator_token.expiring", "cluster"),
  VOLUME_RECLAIM_STOPPED("VolumeReclaimStopped", "warning", "volume.reclaim_stopped", "volume"),
  GPU_XID_FATAL("GpuXidFatal", "critical", "gpu.xid_fatal", "gpu");

  private final String alertname;
  private final String severity;
  private final String auditAction;
  private final String objectKind;

  AlertName(String alertname, String severity, String auditAction, String objectKind) {
    this.alertname = alertname;
    this.severity = severity;
    this.auditAction = auditAction;
    this.objectKind = objectKind;
  }

  /** What the alert is about ({@code node}, {@code cluster}, {@code volume}, {@code gpu}): its object's kind. */
  public String objectKind() {
    return objectKind;
  }

  /** The {@code alertname} label, as Alertmanager and its receivers group by it. */
  public String alertname() {
    return alertname;
  }

  public String severity() {
    return severity;
  }

  /** The audit event written when it fires (kept from before alerts were delivered). */
  public String auditAction() {
    return auditAction;
  }
}
