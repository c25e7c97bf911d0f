package io.gshare.core.policy;

import io.gshare.core.support.NewIds;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
public class PolicyRepository {

  private final JdbcClient jdbc;

  PolicyRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** The team's own policy, else the default, else the built-in one. */
  public Policy effective(String teamId) {
    if (teamId != null) {
      Optional<Policy> own = find(teamId);
      if (own.isPresent()) {
        return own.get();
      }
    }
    return find(null).orElse(Policy.BUILT_IN);
  }

  public Optional<Policy> find(String teamId) {
    return (teamId == null
        ? jdbc.sql("select * from policies where team_id is null")
        : jdbc.sql("select * from policies where team_id = :t").param("t", teamId))
        .query(PolicyRepository::map).optional();
  }

  /** One statement, so two admins saving the same policy at once both succeed (the last one wins). */
  public void upsert(Policy p) {
    String conflict = p.teamId() == null ? "((team_id is null)) where team_id is null" : "(team_id)";
    jdbc.sql("""
        insert into policies (id, team_id, max_concurrent_sessions, max_runtime_minutes, max_runtime_action,
                              idle_timeout_minutes, idle_timeout_minutes_fractional, overflow, placement,
                              min_balance_to_start,
                              volume_quota_gb, volume_quota_count, team_volume_quota_gb, team_volume_quota_count)
        values (:id, :team, :max, :runtime, :action, :idle, :idlefrac, :overflow, :placement, :min, :vgb, :vcount, :tgb, :tcount)
        on conflict %s do update set
               max_concurrent_sessions = excluded.max_concurrent_sessions, max_runtime_minutes = excluded.max_runtime_minutes,
               max_runtime_action = excluded.max_runtime_action, idle_timeout_minutes = excluded.idle_timeout_minutes,
               idle_timeout_minutes_fractional = excluded.idle_timeout_minutes_fractional,
               overflow = excluded.overflow, placement = excluded.placement, min_balance_to_start = excluded.min_balance_to_start,
               volume_quota_gb = excluded.volume_quota_gb, volume_quota_count = excluded.volume_quota_count,
               team_volume_quota_gb = excluded.team_volume_quota_gb, team_volume_quota_count = excluded.team_volume_quota_count
        """.formatted(conflict))
        .param("id", NewIds.next("pol")).param("team", p.teamId())
        .param("max", p.maxConcurrentSessions()).param("runtime", p.maxRuntimeMinutes()).param("action", p.maxRuntimeAction())
        .param("idle", p.idleTimeoutMinutes()).param("idlefrac", p.idleTimeoutMinutesFractional()).param("overflow", p.overflow()).param("placement", p.placement())
        .param("min", p.minBalanceToStart())
        .param("vgb", p.volumeQuotaGb()).param("vcount", p.volumeQuotaCount())
        .param("tgb", p.teamVolumeQuotaGb()).param("tcount", p.teamVolumeQuotaCount())
        .update();
  }

  public int deleteTeamPolicy(String teamId) {
    return jdbc.sql("delete from policies where team_id = :t").param("t", teamId).update();
  }

  private static Policy map(ResultSet rs, int row) throws SQLException {
    return new Policy(rs.getString("team_id"), (Integer) rs.getObject("max_concurrent_sessions"),
        (Integer) rs.getObject("max_runtime_minutes"), rs.getString("max_runtime_action"),
        (Integer) rs.getObject("idle_timeout_minutes"), (Integer) rs.getObject("idle_timeout_minutes_fractional"),
        rs.getString("overflow"), rs.getString("placement"),
        rs.getBigDecimal("min_balance_to_start"), (Integer) rs.getObject("volume_quota_gb"),
        (Integer) rs.getObject("volume_quota_count"), (Integer) rs.getObject("team_volume_quota_gb"),
        (Integer) rs.getObject("team_volume_quota_count"));
  }
}
