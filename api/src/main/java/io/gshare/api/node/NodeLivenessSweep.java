package io.gshare.api.node;

import io.gshare.api.audit.AuditLog;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Raises the admin alert for nodes whose worker stopped reporting them: once per outage, as a
 * {@code node.offline} audit event. Several api replicas may sweep at once; the guarded update makes
 * exactly one of them raise each alert.
 */
@Component
class NodeLivenessSweep implements SchedulingConfigurer {

  private static final Logger log = LoggerFactory.getLogger(NodeLivenessSweep.class);

  private final JdbcClient jdbc;
  private final NodeProperties properties;
  private final AuditLog audit;

  NodeLivenessSweep(JdbcClient jdbc, NodeProperties properties, AuditLog audit) {
    this.jdbc = jdbc;
    this.properties = properties;
    this.audit = audit;
  }

  record Offline(String id, String clusterId, String hostname) {}

  /** Every {@code gshare.node.sweep-interval}, first after one interval. */
  @Override
  public void configureTasks(ScheduledTaskRegistrar tasks) {
    tasks.addFixedDelayTask(new FixedDelayTask(this::sweep, properties.sweepInterval(), properties.sweepInterval()));
  }

  void sweep() {
    List<Offline> offline = jdbc.sql("""
        update nodes n set offline_alerted_at = now()
          from clusters c
         where c.id = n.cluster_id and c.status <> 'detached'
           and n.removed_at is null and n.offline_alerted_at is null
           and c.inventory_at is not null and c.inventory_at < now() - make_interval(secs => :stale)
        returning n.id, n.cluster_id, n.hostname
        """)
        .param("stale", properties.staleAfter().toSeconds())
        .query((rs, n) -> new Offline(rs.getString(1), rs.getString(2), rs.getString(3)))
        .list();
    for (Offline node : offline) {
      audit.alert("node.offline", "node", node.id(), "node " + node.hostname() + " of cluster " + node.clusterId()
          + " has not been reported for " + properties.staleAfter().toSeconds() + "s");
      log.warn("node {} of cluster {} is offline (no report for {}s)", node.hostname(), node.clusterId(),
          properties.staleAfter().toSeconds());
    }
  }
}
