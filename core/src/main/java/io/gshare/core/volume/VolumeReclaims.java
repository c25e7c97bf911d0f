package io.gshare.core.volume;

import io.gshare.core.alert.AlertName;
import io.gshare.core.alert.Alerts;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * A deleted volume's reclaim in Postgres: {@code deleting} while it can still be restored, {@code deleted}
 * once its claims are being deleted (no restore any more), {@code reclaimed} when they are gone; the row
 * stays as history.
 */
@Repository
public class VolumeReclaims {

  /** One claim to delete; {@code clusterAttached} false for a detached (or detaching) cluster. */
  public record Claim(String clusterId, String pvcName, boolean clusterAttached) {}

  private final JdbcClient jdbc;
  private final Alerts alerts;

  VolumeReclaims(JdbcClient jdbc, Alerts alerts) {
    this.jdbc = jdbc;
    this.alerts = alerts;
  }

  public List<Claim> claimsOf(String volumeId) {
    return jdbc.sql("""
        select vc.cluster_id, vc.pvc_name, c.status not in ('detached', 'detaching') as attached
          from volume_claims vc join clusters c on c.id = vc.cluster_id
         where vc.volume_id = :v order by vc.cluster_id
        """).param("v", volumeId)
        .query((rs, n) -> new Claim(rs.getString("cluster_id"), rs.getString("pvc_name"), rs.getBoolean("attached")))
        .list();
  }

  /** True when the volume is (still) being reclaimed: it was not restored; from now on it cannot be. */
  public boolean begin(String volumeId) {
    return jdbc.sql("update volumes set status = 'deleted' where id = :v and status in ('deleting', 'deleted')")
        .param("v", volumeId).update() > 0;
  }

  @Transactional
  public void markReclaimed(String volumeId) {
    jdbc.sql("update volumes set status = 'reclaimed', reclaimed_at = coalesce(reclaimed_at, now()) where id = :v")
        .param("v", volumeId).update();
    jdbc.sql("delete from volume_claims where volume_id = :v").param("v", volumeId).update();
  }

  public void alert(String volumeId, String reason) {
    alerts.raise(AlertName.VOLUME_RECLAIM_STOPPED, volumeId, null, reason);
  }
}
