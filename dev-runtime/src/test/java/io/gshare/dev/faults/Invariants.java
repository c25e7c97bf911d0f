package io.gshare.dev.faults;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.dev.DevRuntime;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The four promises every fault scenario ends by checking, read from the database and the simulated clusters:
 * no GPU oversubscribed, the ledger balanced with every minute charged once, no orphans either way, and every
 * accepted request ended. Each violation is a row in words, naming the objects that break it.
 */
final class Invariants {

  /** The four, as the suite's table names them. */
  enum Invariant {
    NO_OVERSUBSCRIPTION("no GPU oversubscribed"),
    LEDGER_BALANCED("ledger balanced, each minute charged once"),
    NO_ORPHANS("no orphans"),
    REQUESTS_END("every accepted request ends");

    final String words;

    Invariant(String words) {
      this.words = words;
    }
  }

  record Violation(Invariant invariant, String row) {
    @Override
    public String toString() {
      return invariant.words + ": " + row;
    }
  }

  /** States a session passes through; one still in one past {@link #settle} is a request that did not end. */
  private static final Set<String> TRANSITIONAL = Set.of("pending", "creating", "pausing", "resuming", "terminating");
  /** Ended sessions: nothing of theirs may remain on a cluster. */
  private static final Set<String> ENDED = Set.of("terminated", "failed");

  private final DevRuntime runtime;
  private final Duration settle;

  Invariants(DevRuntime runtime, Duration settle) {
    this.runtime = runtime;
    this.settle = settle;
  }

  /** Polls until all four hold or {@code within} passes; answers what still breaks them (empty: all held). */
  List<Violation> awaitHeld(Duration within) throws Exception {
    Instant deadline = Instant.now().plus(within);
    List<Violation> violations = check();
    while (!violations.isEmpty() && Instant.now().isBefore(deadline)) {
      Thread.sleep(1_000);
      violations = check();
    }
    return violations;
  }

  List<Violation> check() throws Exception {
    return check(settle);
  }

  /**
   * True when all four hold even for what is still moving: every session counted as settled, so none may be
   * transitional, none running without its pod, no object of an ended session left. Whatever a longer wait could
   * still see repaired is then already repaired.
   */
  boolean heldWithNothingMoving() throws Exception {
    return check(Duration.ZERO).isEmpty();
  }

  private List<Violation> check(Duration settle) throws Exception {
    List<Violation> out = new ArrayList<>();
    try (Connection db = DriverManager.getConnection(runtime.dbUrl())) {
      oversubscription(db, out);
      ledger(db, out);
      Map<String, String> states = sessionStates(db);
      orphans(db, states, settle, out);
      requestsEnd(db, settle, out);
    }
    return out;
  }

  private void oversubscription(Connection db, List<Violation> out) throws SQLException {
    query(db, """
        select a.gpu_uuid, count(*) as live, count(*) filter (where a.gpumem_mib is null) as whole,
               coalesce(sum(a.gpumem_mib), 0) as mem, coalesce(sum(a.gpucores_percent), 0) as cores,
               d.memory_mib, d.split_count, string_agg(a.session_id, ',') as sessions
          from allocations a left join gpu_devices d on d.uuid = a.gpu_uuid
         where a.released_at is null
         group by a.gpu_uuid, d.memory_mib, d.split_count
        having (count(*) filter (where a.gpumem_mib is null) > 0 and count(*) > 1)
            or coalesce(sum(a.gpumem_mib), 0) > coalesce(d.memory_mib, 0) and count(*) filter (where a.gpumem_mib is null) = 0
            or coalesce(sum(a.gpucores_percent), 0) > 100
            or count(*) > coalesce(d.split_count, 1)
        """, rs -> out.add(new Violation(Invariant.NO_OVERSUBSCRIPTION, "GPU " + rs.getString("gpu_uuid") + " holds "
        + rs.getInt("live") + " live allocations (" + rs.getInt("whole") + " whole, " + rs.getLong("mem") + " MiB, "
        + rs.getInt("cores") + "% cores; capacity " + rs.getLong("memory_mib") + " MiB, split "
        + rs.getInt("split_count") + ") for " + rs.getString("sessions"))));
    // Only a session that holds or is about to hold GPUs may have live allocations.
    query(db, """
        select a.session_id, s.state, count(*) as live from allocations a join sessions s on s.id = a.session_id
         where a.released_at is null and s.state in ('paused', 'terminated', 'failed')
         group by a.session_id, s.state
        """, rs -> out.add(new Violation(Invariant.NO_OVERSUBSCRIPTION, "session " + rs.getString(1) + " is "
        + rs.getString(2) + " but still holds " + rs.getInt(3) + " allocation(s)")));
  }

  private void ledger(Connection db, List<Violation> out) throws SQLException {
    query(db, """
        select a.id, a.balance, coalesce(sum(l.amount), 0) as total
          from credit_accounts a left join credit_ledger l on l.account_id = a.id
         group by a.id, a.balance having a.balance <> coalesce(sum(l.amount), 0)
        """, rs -> out.add(new Violation(Invariant.LEDGER_BALANCED, "account " + rs.getString(1) + " balance "
        + rs.getBigDecimal(2) + " but its entries sum to " + rs.getBigDecimal(3))));
    query(db, """
        select session_id, bucket_start, count(*) from credit_ledger where kind = 'charge'
         group by session_id, bucket_start having count(*) > 1
        """, rs -> out.add(new Violation(Invariant.LEDGER_BALANCED, "session " + rs.getString(1) + " minute "
        + rs.getTimestamp(2).toInstant() + " charged " + rs.getInt(3) + " times")));
    // Each window's charged minutes are exactly its full minutes so far, at its price (a minute is named to the
    // millisecond, so a window opened at .123456 has its first minute at .123); a closed window has at most one
    // settlement, for less than a minute.
    query(db, """
        select w.id, w.session_id, w.price_per_hour,
               floor(extract(epoch from w.charged_through - w.opened_at) / 60)::int as minutes,
               (select count(*) from credit_ledger l where l.kind = 'charge' and l.session_id = w.session_id
                   and l.bucket_start >= date_trunc('milliseconds', w.opened_at)
                   and l.bucket_start < w.charged_through) as charged,
               (select coalesce(sum(-l.amount), 0) from credit_ledger l where l.kind = 'charge'
                   and l.session_id = w.session_id and l.bucket_start >= date_trunc('milliseconds', w.opened_at)
                   and l.bucket_start < w.charged_through) as amount,
               round(w.price_per_hour / 60, 6) as per_minute
          from billing_windows w where w.price_per_hour > 0
        """, rs -> {
          int minutes = rs.getInt("minutes");
          int charged = rs.getInt("charged");
          BigDecimal expected = rs.getBigDecimal("per_minute").multiply(BigDecimal.valueOf(minutes));
          if (charged != minutes || expected.compareTo(rs.getBigDecimal("amount")) != 0) {
            out.add(new Violation(Invariant.LEDGER_BALANCED, "billing window " + rs.getString("id") + " of session "
                + rs.getString("session_id") + " covers " + minutes + " full minutes but " + charged
                + " are charged, " + rs.getBigDecimal("amount") + " credits for " + expected + " due"));
          }
        });
    query(db, """
        select l.session_id, l.amount, w.price_per_hour from credit_ledger l
          join billing_windows w on l.idempotency_key = 'settlement:' || w.session_id || ':' || w.id
         where -l.amount > round(w.price_per_hour / 60, 6)
        """, rs -> out.add(new Violation(Invariant.LEDGER_BALANCED, "session " + rs.getString(1) + " settled "
        + rs.getBigDecimal(2) + ", more than a minute at " + rs.getBigDecimal(3) + "/h")));
  }

  private Map<String, String> sessionStates(Connection db) throws SQLException {
    Map<String, String> states = new HashMap<>();
    query(db, "select id, state from sessions", rs -> states.put(rs.getString(1), rs.getString(2)));
    return states;
  }

  private void orphans(Connection db, Map<String, String> states, Duration settle, List<Violation> out) throws SQLException {
    Set<String> settledSessions = new HashSet<>();
    query(db, "select id from sessions where updated_at < now() - cast(? as interval)", rs ->
        settledSessions.add(rs.getString(1)), settle.toSeconds() + " seconds");
    Set<String> withPod = new HashSet<>();
    for (DevRuntime.AttachedCluster cluster : runtime.clusters()) {
      try (KubernetesClient kube = cluster.newClient()) {
        List<HasMetadata> objects = new ArrayList<>();
        objects.addAll(kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).list().getItems());
        objects.addAll(kube.services().inNamespace(KubeNames.SESSIONS_NAMESPACE).list().getItems());
        objects.addAll(kube.network().v1().ingresses().inNamespace(KubeNames.SESSIONS_NAMESPACE).list().getItems());
        objects.addAll(kube.secrets().inNamespace(KubeNames.SESSIONS_NAMESPACE).list().getItems());
        for (HasMetadata object : objects) {
          String session = object.getMetadata().getLabels() == null ? null
              : object.getMetadata().getLabels().get(LabelKeys.SESSION_ID);
          if (session == null) {
            continue;
          }
          String kind = object.getKind();
          String state = states.get(session);
          if ("Pod".equals(kind)) {
            withPod.add(session);
          }
          boolean allowed = state != null && !ENDED.contains(state) && !("Pod".equals(kind) && "paused".equals(state));
          if (!allowed && (state == null || settledSessions.contains(session))) {
            out.add(new Violation(Invariant.NO_ORPHANS, kind + " " + object.getMetadata().getName() + " on "
                + cluster.name() + " belongs to session " + session + ", which is " + (state == null ? "unknown" : state)));
          }
        }
      }
    }
    for (Map.Entry<String, String> session : states.entrySet()) {
      if ("running".equals(session.getValue()) && settledSessions.contains(session.getKey())
          && !withPod.contains(session.getKey())) {
        out.add(new Violation(Invariant.NO_ORPHANS, "session " + session.getKey()
            + " is running but its cluster has no pod for it"));
      }
    }
    claims(db, out);
    // The worker's own Secret: every connected cluster's worker has its operator token.
    for (DevRuntime.AttachedCluster cluster : runtime.clusters()) {
      try (KubernetesClient kube = cluster.newClient()) {
        if (kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).get() == null) {
          out.add(new Violation(Invariant.NO_ORPHANS, "cluster " + cluster.name() + " is attached but its Secret "
              + WorkerObjects.NAMESPACE + "/" + WorkerObjects.TOKEN_SECRET + " is gone"));
        }
      }
    }
  }

  /**
   * Volume claims both ways: no claim of a volume that is reclaimed or unknown; no claim row the volume sync saw
   * that still says it exists once the claim is gone (it must say Missing); no running session without the claim
   * of the volume it mounts.
   */
  private void claims(Connection db, List<Violation> out) throws SQLException {
    Map<String, String> volumeStatus = new HashMap<>();
    query(db, "select id, status from volumes", rs -> volumeStatus.put(rs.getString(1), rs.getString(2)));
    for (DevRuntime.AttachedCluster cluster : runtime.clusters()) {
      Set<String> present = new HashSet<>();
      try (KubernetesClient kube = cluster.newClient()) {
        for (var claim : kube.persistentVolumeClaims().inNamespace(KubeNames.SESSIONS_NAMESPACE)
            .withLabel(LabelKeys.VOLUME_ID).list().getItems()) {
          String volume = claim.getMetadata().getLabels().get(LabelKeys.VOLUME_ID);
          present.add(claim.getMetadata().getName());
          String status = volumeStatus.get(volume);
          if (status == null || "reclaimed".equals(status)) {
            out.add(new Violation(Invariant.NO_ORPHANS, "claim " + claim.getMetadata().getName() + " on "
                + cluster.name() + " belongs to volume " + volume + ", which is " + (status == null ? "unknown" : status)));
          }
        }
      }
      query(db, """
          select c.volume_id, c.pvc_name, c.phase from volume_claims c join volumes v on v.id = c.volume_id
           where c.cluster_id = ? and c.synced_at is not null and c.phase is distinct from 'Missing'
             and v.status <> 'reclaimed'
          """, rs -> {
            if (!present.contains(rs.getString("pvc_name"))) {
              out.add(new Violation(Invariant.NO_ORPHANS, "volume " + rs.getString("volume_id") + " claims "
                  + rs.getString("pvc_name") + " on " + cluster.name() + " (" + rs.getString("phase")
                  + "), which is gone"));
            }
          }, cluster.id());
      query(db, """
          select s.id, c.pvc_name from sessions s join volume_claims c on c.volume_id = s.volume_id
                                                   and c.cluster_id = s.cluster_id
           where s.state = 'running' and s.cluster_id = ?
          """, rs -> {
            if (!present.contains(rs.getString("pvc_name"))) {
              out.add(new Violation(Invariant.NO_ORPHANS, "session " + rs.getString(1) + " is running without its"
                  + " volume's claim " + rs.getString(2) + " on " + cluster.name()));
            }
          }, cluster.id());
    }
  }

  private void requestsEnd(Connection db, Duration settle, List<Violation> out) throws SQLException {
    query(db, "select id, state, updated_at from sessions where state = any(?) and updated_at < now() - cast(? as interval)",
        rs -> out.add(new Violation(Invariant.REQUESTS_END, "session " + rs.getString(1) + " still "
            + rs.getString(2) + " since " + rs.getTimestamp(3).toInstant())),
        TRANSITIONAL.toArray(String[]::new), settle.toSeconds() + " seconds");
    query(db, "select id, kind, started_at from operations where status = 'running' and started_at < now() - cast(? as interval)",
        rs -> out.add(new Violation(Invariant.REQUESTS_END, "operation " + rs.getString(1) + " (" + rs.getString(2)
            + ") still running since " + rs.getTimestamp(3).toInstant())),
        Duration.ofMinutes(10).toSeconds() + " seconds");
  }

  @FunctionalInterface
  private interface RowHandler {
    void row(ResultSet rs) throws SQLException;
  }

  private static void query(Connection db, String sql, RowHandler handler, Object... params) throws SQLException {
    try (var statement = db.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        if (params[i] instanceof String[] array) {
          statement.setArray(i + 1, db.createArrayOf("text", array));
        } else {
          statement.setObject(i + 1, params[i]);
        }
      }
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          handler.row(rs);
        }
      }
    }
  }
}
