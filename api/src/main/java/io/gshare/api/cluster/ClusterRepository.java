package io.gshare.api.cluster;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
public class ClusterRepository {

  private static final String SELECT = """
      select c.id, c.name, c.status, c.status_reason, c.session_domain, c.ingress_node, c.simulated,
             c.apiserver_version, c.worker_last_seen_at, c.created_at, c.updated_at,
             (select count(*) from nodes n where n.cluster_id = c.id) as node_count,
             (select count(*) from gpu_devices g join nodes n on n.id = g.node_id where n.cluster_id = c.id) as gpu_count
        from clusters c
      """;

  private final JdbcClient jdbc;

  ClusterRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<Cluster> findAll() {
    return jdbc.sql(SELECT + " order by c.name").query(ClusterRepository::map).list();
  }

  public Optional<Cluster> findById(String id) {
    return jdbc.sql(SELECT + " where c.id = :id").param("id", id).query(ClusterRepository::map).optional();
  }

  /** Registers the dev runtime's simulated cluster, or refreshes its settings; idempotent. */
  public void upsertSimulated(String id, String name, String sessionDomain) {
    jdbc.sql("""
        insert into clusters (id, name, status, session_domain, simulated)
        values (:id, :name, 'pending', :domain, true)
        on conflict (id) do update set name = excluded.name, session_domain = excluded.session_domain,
                                       simulated = true
        """)
        .param("id", id).param("name", name).param("domain", sessionDomain)
        .update();
  }

  /** Records what a connection test found. */
  public void recordProbe(String id, String status, String reason, String apiserverVersion, boolean workerAnswered) {
    jdbc.sql("""
        update clusters
           set status = :status, status_reason = :reason,
               apiserver_version = coalesce(:version, apiserver_version),
               worker_last_seen_at = case when :answered then now() else worker_last_seen_at end
         where id = :id
        """)
        .param("id", id).param("status", status).param("reason", reason)
        .param("version", apiserverVersion).param("answered", workerAnswered)
        .update();
  }

  private static Cluster map(ResultSet rs, int row) throws SQLException {
    return new Cluster(
        rs.getString("id"),
        rs.getString("name"),
        rs.getString("status"),
        rs.getString("status_reason"),
        rs.getString("session_domain"),
        rs.getString("ingress_node"),
        rs.getBoolean("simulated"),
        rs.getString("apiserver_version"),
        instant(rs.getTimestamp("worker_last_seen_at")),
        rs.getInt("node_count"),
        rs.getInt("gpu_count"),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")));
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
