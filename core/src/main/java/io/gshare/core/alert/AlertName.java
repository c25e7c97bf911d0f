package io.gshare.core.alert;

/** The admin alerts gShare raises: their Alertmanager {@code alertname}, severity and the audit action beside them. */
public enum AlertName {
  NODE_OFFLINE("NodeOffline", "warning", "node.offline"),
  OPERATOR_TOKEN_EXPIRING("OperatorTokenExpiring", "critical", "operator_token.expiring"),
  VOLUME_RECLAIM_STOPPED("VolumeReclaimStopped", "warning", "volume.reclaim_stopped"),
  GPU_XID_FATAL("GpuXidFatal", "critical", "gpu.xid_fatal");

  private final String alertname;
  private final String severity;
  private final String auditAction;

  AlertName(String alertname, String severity, String auditAction) {
    this.alertname = alertname;
    this.severity = severity;
    this.auditAction = auditAction;
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
