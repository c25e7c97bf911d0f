package io.gshare.core.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.contract.internal.InventoryReport;
import io.gshare.core.support.AdvisoryLocks;
import io.gshare.core.support.NewIds;
import io.gshare.workflows.common.WireEnum;
import io.gshare.workflows.kube.LabelKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Writes what cluster-workers report: nodes and GPU devices. A report writes only the rows that changed,
 * plus one last-seen stamp for all reported nodes, so steady state costs two statements per tick.
 */
@Repository
public class InventoryWriter {

  /**
   * What one report changed.
   *
   * @param gpusTurnedUnhealthy cards HAMi's device plugin now reports unhealthy that it reported healthy before (it
   *     marks a card so on a critical Xid): the api treats them as a GPU fault. Not part of the answer to the worker
   *     (the contract's {@code InventoryAnswer})
   */
  public record Applied(int nodesInserted, int nodesUpdated, int gpusInserted, int gpusUpdated, int gpusRemoved,
      List<String> gpusTurnedUnhealthy) {}

  private record StoredNode(String id, NodeLiveness liveness, GpuMode gpuMode, boolean schedulable, boolean losslessPause,
      Map<String, String> labels, Map<String, String> capacity, boolean removed) {}

  private final JdbcClient jdbc;
  private final ObjectMapper json;

  InventoryWriter(JdbcClient jdbc, ObjectMapper json) {
    this.jdbc = jdbc;
    this.json = json;
  }

  /** GPU uuids among {@code uuids} that belong to a node of another cluster than {@code clusterId}. */
  public Map<String, String> foreignGpus(String clusterId, Set<String> uuids) {
    if (uuids.isEmpty()) {
      return Map.of();
    }
    Map<String, String> foreign = new HashMap<>();
    jdbc.sql("""
        select g.uuid, n.cluster_id from gpu_devices g join nodes n on n.id = g.node_id
         where g.uuid = any(:uuids) and n.cluster_id <> :cluster
        """)
        .param("uuids", uuids.toArray(String[]::new)).param("cluster", clusterId)
        .query((rs, n) -> foreign.put(rs.getString(1), rs.getString(2)))
        .list();
    return foreign;
  }

  public Applied apply(String clusterId, InventoryReport report) {
    // Before reading: a node removal of this cluster in flight either commits first, and its hostname is
    // then registered anew, or waits for this report and then sees the node reported (NodeRemoval).
    AdvisoryLocks.inventory(jdbc, clusterId);
    Map<String, StoredNode> stored = new HashMap<>();
    jdbc.sql("""
        select id, hostname, liveness, gpu_mode, schedulable, lossless_pause, labels, capacity, removed_at
          from nodes where cluster_id = :c
        """)
        .param("c", clusterId)
        .query((rs, n) -> stored.put(rs.getString("hostname"), new StoredNode(rs.getString("id"),
            NodeLiveness.fromWire(rs.getString("liveness")), GpuMode.fromWire(rs.getString("gpu_mode")), rs.getBoolean("schedulable"), rs.getBoolean("lossless_pause"),
            labels(rs.getString("labels")), labels(rs.getString("capacity")), rs.getTimestamp("removed_at") != null)))
        .list();

    int inserted = 0;
    int updated = 0;
    Map<String, String> nodeIds = new HashMap<>();
    for (InventoryReport.NodeReport node : report.nodes()) {
      NodeLiveness liveness = NodeLiveness.reported(node.ready());
      GpuMode gpuMode = GpuMode.fromWire(node.gpuMode());
      Map<String, String> labels = node.labels() == null ? Map.of() : node.labels();
      Map<String, String> capacity = node.capacity() == null ? Map.of() : node.capacity();
      StoredNode current = stored.get(node.hostname());
      if (current == null) {
        String id = NewIds.next("nod");
        jdbc.sql("""
            insert into nodes (id, cluster_id, hostname, liveness, gpu_mode, schedulable, lossless_pause, labels,
                               capacity, last_seen_at)
            values (:id, :c, :h, :l, :m, :s, :p, cast(:labels as jsonb), cast(:capacity as jsonb), now())
            """)
            .param("id", id).param("c", clusterId).param("h", node.hostname()).param("l", liveness.wireName())
            .param("m", WireEnum.wireNameOrNull(gpuMode)).param("s", node.schedulable()).param("p", node.losslessPause())
            .param("labels", toJson(labels)).param("capacity", toJson(capacity))
            .update();
        nodeIds.put(node.hostname(), id);
        inserted++;
      } else {
        nodeIds.put(node.hostname(), current.id());
        if (liveness != current.liveness() || gpuMode != current.gpuMode()
            || node.schedulable() != current.schedulable() || node.losslessPause() != current.losslessPause()
            || !labels.equals(current.labels()) || !capacity.equals(current.capacity()) || current.removed()) {
          jdbc.sql("""
              update nodes set liveness = :l, gpu_mode = :m, schedulable = :s, lossless_pause = :p,
                               labels = cast(:labels as jsonb), capacity = cast(:capacity as jsonb), removed_at = null,
                               last_seen_at = now()
               where id = :id
              """)
              .param("id", current.id()).param("l", liveness.wireName())
              .param("m", WireEnum.wireNameOrNull(gpuMode))
              .param("s", node.schedulable()).param("p", node.losslessPause()).param("labels", toJson(labels))
              .param("capacity", toJson(capacity))
              .update();
          updated++;
        }
      }
    }
    String[] reported = report.nodes().stream().map(InventoryReport.NodeReport::hostname).toArray(String[]::new);
    // Reporting again ends an outage: its alert may be raised anew next time (touches rows only after one).
    jdbc.sql("update nodes set offline_alerted_at = null where cluster_id = :c and offline_alerted_at is not null")
        .param("c", clusterId).update();
    // Nodes gone from the cluster leave the inventory view; their rows (and the history naming them) stay.
    int removed = jdbc.sql("""
        update nodes set removed_at = now() where cluster_id = :c and removed_at is null and not (hostname = any(:h))
        """).param("c", clusterId).param("h", reported).update();
    List<String> turnedUnhealthy = new ArrayList<>();
    int[] gpuCounts = applyGpus(report, nodeIds, turnedUnhealthy);
    boolean simulated = report.nodes().stream().anyMatch(n -> LabelKeys.simulated(n.labels()));
    jdbc.sql("""
        update clusters set worker_last_seen_at = now(), inventory_at = now(),
               apiserver_version = coalesce(:v, apiserver_version), simulated = :sim
         where id = :c
        """).param("c", clusterId).param("v", report.apiserverVersion()).param("sim", simulated).update();
    return new Applied(inserted, updated + removed, gpuCounts[0], gpuCounts[1], gpuCounts[2], List.copyOf(turnedUnhealthy));
  }

  /** Returns {inserted, updated, removed}. */
  private int[] applyGpus(InventoryReport report, Map<String, String> nodeIds, List<String> turnedUnhealthy) {
    Map<String, NodeQueries.Gpu> stored = new HashMap<>();
    Map<String, String> storedNode = new HashMap<>();
    Set<String> reportedNodeIds = new HashSet<>(nodeIds.values());
    if (!reportedNodeIds.isEmpty()) {
      jdbc.sql("select * from gpu_devices where node_id = any(:ids)")
          .param("ids", reportedNodeIds.toArray(String[]::new))
          .query((rs, n) -> {
            stored.put(rs.getString("uuid"), NodeQueries.gpu(rs));
            storedNode.put(rs.getString("uuid"), rs.getString("node_id"));
            return null;
          })
          .list();
    }
    int inserted = 0;
    int updated = 0;
    Set<String> seen = new HashSet<>();
    for (InventoryReport.NodeReport node : report.nodes()) {
      String nodeId = nodeIds.get(node.hostname());
      for (InventoryReport.GpuReport g : node.gpusOrEmpty()) {
        seen.add(g.uuid());
        NodeQueries.Gpu current = stored.get(g.uuid());
        if (current == null) {
          // A card moved from another node of this cluster, or is new: the uuid is the identity.
          jdbc.sql("""
              insert into gpu_devices (uuid, node_id, device_index, model, memory_mib, cores_percent, split_count, healthy)
              values (:u, :n, :i, :m, :mem, :c, :s, :h)
              on conflict (uuid) do update set node_id = excluded.node_id, device_index = excluded.device_index,
                  model = excluded.model, memory_mib = excluded.memory_mib, cores_percent = excluded.cores_percent,
                  split_count = excluded.split_count, healthy = excluded.healthy
              """)
              .param("u", g.uuid()).param("n", nodeId).param("i", g.index()).param("m", g.model())
              .param("mem", g.memoryMib()).param("c", g.coresPercent()).param("s", g.splitCount()).param("h", g.healthy())
              .update();
          inserted++;
        } else if (!nodeId.equals(storedNode.get(g.uuid())) || current.index() != g.index()
            || !current.model().equals(g.model()) || current.memoryMib() != g.memoryMib()
            || current.coresPercent() != g.coresPercent() || current.splitCount() != g.splitCount()
            || current.healthy() != g.healthy()) {
          jdbc.sql("""
              update gpu_devices set node_id = :n, device_index = :i, model = :m, memory_mib = :mem,
                     cores_percent = :c, split_count = :s, healthy = :h
               where uuid = :u
              """)
              .param("u", g.uuid()).param("n", nodeId).param("i", g.index()).param("m", g.model())
              .param("mem", g.memoryMib()).param("c", g.coresPercent()).param("s", g.splitCount()).param("h", g.healthy())
              .update();
          updated++;
          if (current.healthy() && !g.healthy()) {
            turnedUnhealthy.add(g.uuid());
          }
          if (current.healthy() && !g.healthy()) {
            turnedUnhealthy.add(g.uuid());
          }
        }
      }
    }
    // Cards gone from a reported node: forget them unless a live allocation still names them.
    List<String> gone = new ArrayList<>(stored.keySet());
    gone.removeAll(seen);
    int removed = 0;
    if (!gone.isEmpty()) {
      removed = jdbc.sql("""
          delete from gpu_devices g where g.uuid = any(:gone)
             and not exists (select 1 from allocations a where a.gpu_uuid = g.uuid and a.released_at is null)
          """).param("gone", gone.toArray(String[]::new)).update();
      jdbc.sql("update gpu_devices set healthy = false where uuid = any(:gone) and healthy")
          .param("gone", gone.toArray(String[]::new)).update();
    }
    return new int[] {inserted, updated, removed};
  }

  private Map<String, String> labels(String value) {
    return NodeJson.labels(json, value);
  }

  private String toJson(Map<String, String> labels) {
    return NodeJson.toJson(json, labels);
  }
}
