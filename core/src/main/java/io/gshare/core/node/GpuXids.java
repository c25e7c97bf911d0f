package io.gshare.core.node;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The last Xid reported per card. dcgm-exporter's {@code DCGM_FI_DEV_XID_ERRORS} holds a code until the driver
 * reloads and every report repeats it, so a fault is a change of the code, not its presence.
 */
@Repository
public class GpuXids {

  private final JdbcClient jdbc;

  GpuXids(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Records {@code code} as the card's last Xid; true when it differs from the one recorded before (a new fault or a clear). */
  public boolean recordChanged(String uuid, int code) {
    return jdbc.sql("update gpu_devices set last_xid = :c where uuid = :u and last_xid is distinct from :c")
        .param("u", uuid).param("c", code).update() > 0;
  }
}
