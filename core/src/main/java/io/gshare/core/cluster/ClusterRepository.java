package io.gshare.core.cluster;

import io.gshare.core.node.Liveness;
import io.gshare.workflows.cluster.ClusterStatus;
import io.gshare.workflows.session.SessionRoute;
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
      select c.id, c.name, c.status, c.status_reason, c.session_domain, c.ingress_node, c.checkpoint_registry, c.simulated,
             c.apiserver_version, c.worker_last_seen_at, c.prometheus_url, c.hami_monitor_url, c.session_routing,
             c.session_gateway, c.created_at, c.updated_at, c.detached_at,
             (select count(*) from nodes n where n.cluster_id = c.id and n.removed_at is null) as node_count,
             (select count(*) from nodes n where n.cluster_id = c.id and n.removed_at is null
                 and (c.inventory_at is null or c.inventory_at < now() - make_interval(secs => :stale))) as offline_nodes,
             (select count(*) from gpu_devices g join nodes n on n.id = g.node_id
               where n.cluster_id = c.id and n.removed_at is null) as gpu_count
        from clusters c
      """;

  private final JdbcClient jdbc;
  private final Liveness nodes;
  private final IdleSourceDefaults idleDefaults;

  public ClusterRepository(JdbcClient jdbc, Liveness nodes, IdleSourceDefaults idleDefaults) {
    this.jdbc = jdbc;
    this.nodes = nodes;
    this.idleDefaults = idleDefaults;
  }

  public List<Cluster> findAll(boolean includeDetached) {
    return jdbc.sql(SELECT + (includeDetached ? "" : " where c.status <> 'detached'") + " order by c.name, c.id")
        .param("stale", nodes.staleAfter().toSeconds())
        .query(this::map).list();
  }

  /** Whether a worker of this cluster may report: it is registered and not detached (a detached cluster's token is dead). */
  public boolean acceptsReportsFrom(String id) {
    return jdbc.sql("select count(*) from clusters where id = :id and status <> 'detached'")
        .param("id", id).query(Integer.class).single() > 0;
  }

  public Optional<Cluster> findById(String id) {
    return jdbc.sql(SELECT + " where c.id = :id").param("id", id).param("stale", nodes.staleAfter().toSeconds())
        .query(this::map).optional();
  }

  public void insert(String id, String name, byte[] kubeconfig, String sessionDomain, String ingressNode,
      String checkpointRegistry, String storageSettings) {
    jdbc.sql("""
        insert into clusters (id, name, status, kubeconfig_ciphertext, session_domain, ingress_node, checkpoint_registry,
                              storage_settings)
        values (:id, :name, 'pending', :kubeconfig, :domain, :ingress, :registry, cast(:storage as jsonb))
        """)
        .param("id", id).param("name", name).param("kubeconfig", kubeconfig).param("domain", sessionDomain)
        .param("ingress", ingressNode).param("registry", checkpointRegistry).param("storage", storageSettings)
        .update();
  }

  public void updateSettings(String id, String sessionDomain, String ingressNode, String checkpointRegistry) {
    jdbc.sql("""
        update clusters set session_domain = :domain, ingress_node = :ingress, checkpoint_registry = :registry where id = :id
        """)
        .param("id", id).param("domain", sessionDomain).param("ingress", ingressNode).param("registry", checkpointRegistry)
        .update();
  }

  /** The uid of the kube-system namespace the stored kubeconfig reached when last probed, if known. */
  public Optional<String> kubeSystemUid(String id) {
    return jdbc.sql("select kube_system_uid from clusters where id = :id and kube_system_uid is not null")
        .param("id", id).query(String.class).optional();
  }

  /** The cluster's sealed kubeconfig, replaced in place, with the identity the new one was proven to reach. */
  public void updateKubeconfig(String id, byte[] sealedKubeconfig, String kubeSystemUid) {
    jdbc.sql("update clusters set kubeconfig_ciphertext = :kubeconfig, kube_system_uid = :uid where id = :id")
        .param("id", id).param("kubeconfig", sealedKubeconfig).param("uid", kubeSystemUid).update();
  }

  /** Sets where the cluster's worker reads GPU activity; null clears a source. */
  public void updateActivitySources(String id, String prometheusUrl, String hamiMonitorUrl) {
    jdbc.sql("update clusters set prometheus_url = :prometheus, hami_monitor_url = :hami where id = :id")
        .param("id", id).param("prometheus", prometheusUrl).param("hami", hamiMonitorUrl).update();
  }

  /** The id of the cluster not detached that has this name, if any. */
  public Optional<String> liveIdByName(String name) {
    return jdbc.sql("select id from clusters where name = :name and status <> 'detached' order by created_at desc limit 1")
        .param("name", name).query(String.class).optional();
  }

  /** Sets how the cluster routes session URLs ({@code ingress-nginx} or {@code gateway-api} with its Gateway). */
  public void updateSessionRouting(String id, String routing, String gateway) {
    jdbc.sql("update clusters set session_routing = :routing, session_gateway = :gateway where id = :id")
        .param("id", id).param("routing", routing).param("gateway", gateway).update();
  }

  /** How the cluster routes session URLs, for the specs of its sessions; ingress-nginx for an unknown cluster. */
  public SessionRoute sessionRouteOf(String id) {
    return jdbc.sql("select session_routing, session_gateway from clusters where id = :id").param("id", id)
        .query((rs, row) -> {
          var routing = SessionRoute.Routing.fromWire(rs.getString(1));
          String gateway = rs.getString(2);
          return routing == SessionRoute.Routing.GATEWAY_API && gateway != null
              ? new SessionRoute(routing, gateway.substring(0, gateway.indexOf('/')),
                  gateway.substring(gateway.indexOf('/') + 1))
              : SessionRoute.INGRESS_NGINX;
        })
        .optional().orElse(SessionRoute.INGRESS_NGINX);
  }

  /** Where the cluster's worker reads GPU activity; empty for an unknown cluster. */
  public Optional<Cluster.IdleReaping> idleReaping(String id) {
    return jdbc.sql("select prometheus_url, hami_monitor_url from clusters where id = :id").param("id", id)
        .query((rs, row) -> Cluster.IdleReaping.of(rs.getString("prometheus_url"), rs.getString("hami_monitor_url"),
            idleDefaults))
        .optional();
  }

  /** The sources the cluster sets itself (its PATCH), without the control plane's defaults. */
  public Optional<Cluster.IdleReaping> ownIdleSources(String id) {
    return jdbc.sql("select prometheus_url, hami_monitor_url from clusters where id = :id").param("id", id)
        .query((rs, row) -> Cluster.IdleReaping.of(rs.getString("prometheus_url"), rs.getString("hami_monitor_url")))
        .optional();
  }

  /** Records what a connection test found. */
  public void recordProbe(String id, String status, String reason, String apiserverVersion, boolean workerAnswered) {
    jdbc.sql("""
        update clusters
           set status = case when status in ('attaching', 'detaching', 'detached', 'pending') then status else :status end,
               status_reason = :reason,
               apiserver_version = coalesce(:version, apiserver_version),
               worker_last_seen_at = case when :answered then now() else worker_last_seen_at end
         where id = :id
        """)
        .param("id", id).param("status", status).param("reason", reason)
        .param("version", apiserverVersion).param("answered", workerAnswered)
        .update();
  }

  private Cluster map(ResultSet rs, int row) throws SQLException {
    return new Cluster(
        rs.getString("id"),
        rs.getString("name"),
        ClusterStatus.fromWire(rs.getString("status")),
        rs.getString("status_reason"),
        rs.getString("session_domain"),
        rs.getString("ingress_node"),
        rs.getString("checkpoint_registry"),
        rs.getBoolean("simulated"),
        rs.getString("apiserver_version"),
        instant(rs.getTimestamp("worker_last_seen_at")),
        rs.getInt("node_count"),
        rs.getInt("offline_nodes"),
        rs.getInt("gpu_count"),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")),
        instant(rs.getTimestamp("detached_at")),
        Cluster.IdleReaping.of(rs.getString("prometheus_url"), rs.getString("hami_monitor_url"), idleDefaults),
        rs.getString("session_routing"),
        rs.getString("session_gateway"));
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
