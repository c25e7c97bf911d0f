package io.gshare.core.session;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.cluster.IdleSourceDefaults;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The idle reaper's rule, in one place: the {@code idle-reaper} sweep calls {@link #sweep} every minute.
 *
 * <p>A running session is idle while the samples its cluster's worker sends (from DCGM through Prometheus, or
 * from HAMi's monitor) show no GPU activity: utilization 0 and, where HAMi says it, no kernel since. It counts
 * from the last activity, the start of its current run, or the start of an unbroken run of samples, whichever
 * is latest, so a hole in the measurements (a worker away longer than {@code staleAfter}) restarts the count
 * and a session is never paused on what nobody measured. When the pause nears (10 minutes before, or at half
 * the timeout when that is shorter) the session shows a warning with the time; a session whose GPUs are used
 * again loses the warning and starts over. A session is paused only once a sweep before has shown its
 * warning and the time it gave has passed. Without a source for the cluster, or without a timeout in the
 * session's policy, nothing is paused (the max runtime still applies, in the session workflow).
 */
@Component
public class IdleSessions {

  /** How long before the pause the warning appears (at most; half the timeout when that is shorter). */
  static final Duration WARNING_LEAD = Duration.ofMinutes(10);
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm 'UTC'").withZone(ZoneOffset.UTC);
  public static final String REAPED = "session.idle_paused";

  /** A session to pause, with the reason it will show ("idle for 30 minutes by dcgm"). */
  public record Pause(String sessionId, String reason) {}

  /** One sweep: running sessions looked at, how many are idle, how many show a warning, which to pause. */
  public record Sweep(int evaluated, int idle, int warned, List<Pause> pauses) {}

  /** What the sweep reads per running session. */
  record Observed(String sessionId, boolean measured, Integer timeoutMinutes, Instant runningSince, Instant latest,
      Instant coverageStart, Instant lastBusy, Instant lastKernel, String source, Known known) {}

  /** What the session row holds from the sweep before. */
  record Known(String source, Instant idleSince, Instant lastActivityAt, String warning, Instant pauseAt) {}

  /** What the session row should hold now, and whether to pause it. */
  record Decision(Known state, boolean pause, long idleMinutes) {}

  private final JdbcClient jdbc;
  private final AuditLog audit;
  private final IdleSourceDefaults defaults;

  IdleSessions(JdbcClient jdbc, AuditLog audit, IdleSourceDefaults defaults) {
    this.jdbc = jdbc;
    this.audit = audit;
    this.defaults = defaults;
  }

  /**
   * Decides for every running session, writes what changed to its row, records an audit event for each
   * session it decides to pause (once per idle run: a retried sweep writes it again under the same key), and
   * returns the sessions to pause. Pausing is the caller's: it signals each session's workflow.
   */
  @Transactional
  public Sweep sweep(Instant now, Duration staleAfter) {
    List<Observed> observed = observe(now, staleAfter);
    int idle = 0;
    int warned = 0;
    List<Pause> pauses = new ArrayList<>();
    for (Observed o : observed) {
      Decision d = decide(o, now, staleAfter);
      if (!d.state().equals(o.known())) {
        write(o.sessionId(), d.state());
      }
      idle += d.state().idleSince() == null ? 0 : 1;
      warned += d.state().warning() == null ? 0 : 1;
      if (d.pause()) {
        String reason = "idle for " + d.idleMinutes() + " minutes by " + d.state().source();
        audit.systemEvent(REAPED, "session", o.sessionId(), reason,
            REAPED + "|" + o.sessionId() + "|" + d.state().idleSince(),
            Map.of("source", d.state().source(), "idle_since", d.state().idleSince().toString(),
                "timeout_minutes", String.valueOf(o.timeoutMinutes())));
        pauses.add(new Pause(o.sessionId(), reason));
      }
    }
    return new Sweep(observed.size(), idle, warned, List.copyOf(pauses));
  }

  /** The rule, without I/O. */
  static Decision decide(Observed o, Instant now, Duration staleAfter) {
    Known was = o.known();
    Instant activity = latest(o.lastBusy(), o.lastKernel());
    Instant lastActivity = latest(was.lastActivityAt(), activity);
    if (!o.measured() || o.latest() == null || o.latest().isBefore(now.minus(staleAfter))) {
      // No source, or no recent measurement: unknown, so not idle.
      return new Decision(new Known(null, null, lastActivity, null, null), false, 0);
    }
    if (activity != null && !activity.isBefore(o.latest())) {
      return new Decision(new Known(o.source(), null, lastActivity, null, null), false, 0);
    }
    Instant idleSince = latest(latest(o.coverageStart(), o.runningSince()), activity);
    long idleMinutes = Duration.between(idleSince, now).toMinutes();
    if (o.timeoutMinutes() == null) {
      return new Decision(new Known(o.source(), idleSince, lastActivity, null, null), false, idleMinutes);
    }
    Duration timeout = Duration.ofMinutes(o.timeoutMinutes());
    Instant pauseAt = idleSince.plus(timeout);
    Duration lead = timeout.dividedBy(2).compareTo(WARNING_LEAD) < 0 ? timeout.dividedBy(2) : WARNING_LEAD;
    if (now.isBefore(pauseAt.minus(lead))) {
      return new Decision(new Known(o.source(), idleSince, lastActivity, null, null), false, idleMinutes);
    }
    String warning = "idle since " + CLOCK.format(idleSince) + " by " + o.source() + ": pauses at "
        + CLOCK.format(pauseAt) + " unless its GPUs are used (policy idle timeout " + o.timeoutMinutes() + " min)";
    // Pause only after an earlier sweep showed the warning with a time that has now passed.
    boolean pause = !now.isBefore(pauseAt) && was.warning() != null && was.pauseAt() != null
        && !now.isBefore(was.pauseAt());
    return new Decision(new Known(o.source(), idleSince, lastActivity, warning, pauseAt), pause, idleMinutes);
  }

  private List<Observed> observe(Instant now, Duration staleAfter) {
    // The team's own policy, else the default (as PolicyRepository.effective), for the session's mode. Samples
    // are read back as far as the timeout and a quarter of an hour (an hour without a timeout).
    return jdbc.sql("""
        with live as (
          select s.id, s.idle_source, s.idle_since, s.last_activity_at, s.idle_warning, s.idle_pause_at,
                 bw.opened_at as running_since,
                 (c.prometheus_url is not null or c.hami_monitor_url is not null or :defaultSource) as measured,
                 coalesce(case when s.mode = 'fractional' then p.idle_timeout_minutes_fractional end,
                          p.idle_timeout_minutes) as timeout_minutes
            from sessions s
            join billing_windows bw on bw.session_id = s.id and bw.closed_at is null
            join clusters c on c.id = s.cluster_id
            join users u on u.id = s.user_id
            left join lateral (select * from policies p
                                where p.team_id = u.team_id or p.team_id is null
                                order by p.team_id nulls last limit 1) p on true
           where s.state = 'running'
        )
        select live.*, a.latest, a.coverage_start, a.last_busy, a.last_kernel, a.source
          from live
          left join lateral (
            select max(sampled_at) as latest,
                   max(sampled_at) filter (where prev is null or sampled_at - prev > make_interval(secs => :gap)) as coverage_start,
                   max(sampled_at) filter (where gpu_util_percent > 0) as last_busy,
                   max(last_kernel_at) as last_kernel,
                   (array_agg(source order by sampled_at desc))[1] as source
              from (select sampled_at, gpu_util_percent, last_kernel_at, source,
                           lag(sampled_at) over (order by sampled_at) as prev
                      from session_usage su
                     where su.session_id = live.id and su.source is not null and su.sampled_at <= cast(:now as timestamptz)
                       and su.sampled_at >= greatest(live.running_since,
                             cast(:now as timestamptz) - make_interval(mins => coalesce(live.timeout_minutes, 45) + 15))) w
          ) a on true
        """)
        .param("now", Timestamp.from(now))
        .param("gap", staleAfter.toMillis() / 1000.0)
        .param("defaultSource", defaults.any())
        .query(IdleSessions::map).list();
  }

  private static Observed map(ResultSet rs, int row) throws SQLException {
    return new Observed(rs.getString("id"), rs.getBoolean("measured"), (Integer) rs.getObject("timeout_minutes"),
        instant(rs, "running_since"), instant(rs, "latest"), instant(rs, "coverage_start"), instant(rs, "last_busy"),
        instant(rs, "last_kernel"), rs.getString("source"),
        new Known(rs.getString("idle_source"), instant(rs, "idle_since"), instant(rs, "last_activity_at"),
            rs.getString("idle_warning"), instant(rs, "idle_pause_at")));
  }

  private void write(String sessionId, Known k) {
    // Only while still running: a session paused meanwhile keeps what it had.
    jdbc.sql("""
        update sessions set idle_source = :source, idle_since = :since, last_activity_at = :active,
                            idle_warning = :warning, idle_pause_at = :pause_at
         where id = :id and state = 'running'
        """)
        .param("id", sessionId).param("source", k.source()).param("since", ts(k.idleSince()))
        .param("active", ts(k.lastActivityAt())).param("warning", k.warning()).param("pause_at", ts(k.pauseAt()))
        .update();
  }

  private static Instant latest(Instant a, Instant b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp ts = rs.getTimestamp(column);
    return ts == null ? null : ts.toInstant();
  }

  private static Timestamp ts(Instant instant) {
    return instant == null ? null : Timestamp.from(instant);
  }
}
