package io.gshare.activities.control;

import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionControlActivities;
import io.gshare.workflows.session.SessionRecord;
import org.springframework.jdbc.core.simple.JdbcClient;

/** A session's control-plane side: placement, its row, its billing windows. Each call is idempotent. */
public class SessionControlActivitiesImpl implements SessionControlActivities {

  private final JdbcClient jdbc;
  private final BillingWindows billing;
  private final Placer placer;

  public SessionControlActivitiesImpl(JdbcClient jdbc, BillingWindows billing, Placer placer) {
    this.jdbc = jdbc;
    this.billing = billing;
    this.placer = placer;
  }

  @Override
  public GpuPlacement place(String sessionId) {
    return placer.place(sessionId);
  }

  private void release(String sessionId) {
    jdbc.sql("update allocations set released_at = now() where session_id = :s and released_at is null")
        .param("s", sessionId).update();
  }

  @Override
  public void record(SessionRecord r) {
    jdbc.sql("""
        update sessions set
               state = :state,
               state_reason = :reason,
               url = case when :state = 'running' then coalesce(:url, url) else null end,
               node_id = case when :state in ('running', 'creating', 'resuming') then coalesce(:node, node_id) else node_id end,
               node_hostname = coalesce(:host, node_hostname),
               pause_kind = case when :state = 'paused' then coalesce(:kind, pause_kind) when :state = 'running' then null
                                 else pause_kind end,
               checkpoint_image = case when :state = 'paused' then :checkpoint else checkpoint_image end,
               started_at = case when :state = 'running' then coalesce(started_at, now()) else started_at end,
               ended_at = case when :state in ('terminated', 'failed') then coalesce(ended_at, now()) else ended_at end
         where id = :id
        """)
        .param("id", r.sessionId()).param("state", r.state()).param("reason", r.reason()).param("url", r.url())
        .param("node", r.nodeId()).param("host", r.hostname()).param("kind", r.pauseKind()).param("checkpoint", r.checkpoint())
        .update();
  }

  @Override
  public void markRunning(SessionRecord running) {
    record(running);
    billing.open(running.sessionId());
  }

  @Override
  public void settle(SessionRecord stopped) {
    billing.close(stopped.sessionId());
    release(stopped.sessionId());
    record(stopped);
  }
}
