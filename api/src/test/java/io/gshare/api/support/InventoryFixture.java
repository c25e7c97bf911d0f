package io.gshare.api.support;

import org.springframework.jdbc.core.simple.JdbcClient;

/** Clusters, nodes and GPUs written straight to Postgres, as attach and the inventory would leave them. */
public final class InventoryFixture {

  private final JdbcClient jdbc;

  public InventoryFixture(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** A connected cluster that reported its inventory just now. */
  public String cluster() {
    String id = NewTestIds.next("clu");
    jdbc.sql("""
        insert into clusters (id, name, status, session_domain, inventory_at, worker_last_seen_at)
        values (:id, :name, 'connected', :domain, now(), now())
        """).param("id", id).param("name", id.replace('_', '-')).param("domain", id.replace('_', '-') + ".example.com").update();
    return id;
  }

  /** A ready node with {@code gpus} cards of {@code model}; returns the node id. */
  public String node(String clusterId, String mode, String model, int gpus, long memoryMib, int splitCount, String poolId) {
    String id = NewTestIds.next("nod");
    jdbc.sql("""
        insert into nodes (id, cluster_id, hostname, liveness, gpu_mode, pool_id, last_seen_at)
        values (:id, :c, :h, 'ready', :m, :p, now())
        """).param("id", id).param("c", clusterId).param("h", id.replace('_', '-')).param("m", mode).param("p", poolId)
        .update();
    for (int i = 0; i < gpus; i++) {
      jdbc.sql("""
          insert into gpu_devices (uuid, node_id, device_index, model, memory_mib, split_count)
          values (:u, :n, :i, :m, :mem, :split)
          """).param("u", "GPU-" + id + "-" + i).param("n", id).param("i", i).param("m", model).param("mem", memoryMib)
          .param("split", splitCount).update();
    }
    return id;
  }

  public String offering(String model, String mode, Integer count, Integer mem, Integer cores, double pricePerHour) {
    String id = NewTestIds.next("off");
    jdbc.sql("""
        insert into offerings (id, name, gpu_model, mode, gpu_count, gpumem_mib, gpucores_percent, price_per_hour)
        values (:id, :name, :model, :mode, :count, :mem, :cores, :price)
        """).param("id", id).param("name", id).param("model", model).param("mode", mode).param("count", count)
        .param("mem", mem).param("cores", cores).param("price", pricePerHour).update();
    return id;
  }

  /** A pending session row for {@code userId}, as session create would insert before placing it. */
  public String session(String userId, String model, String mode) {
    String id = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, gpu_model, mode, price_per_hour, image_reference, workflow_id)
        values (:id, :u, 'pending', :model, :mode, 1, 'img', :w)
        """).param("id", id).param("u", userId).param("model", model).param("mode", mode).param("w", "session-" + id)
        .update();
    return id;
  }
}
