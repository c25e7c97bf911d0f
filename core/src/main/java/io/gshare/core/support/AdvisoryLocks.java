package io.gshare.core.support;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Transaction-scoped Postgres advisory locks, named here once so that every writer that must
 * serialize with another takes the same key. They cost no row writes and end with the transaction.
 */
public final class AdvisoryLocks {

  private AdvisoryLocks() {}

  /** Placements of one GPU model; a node's removal takes the ones of its cards' models. */
  public static void placement(JdbcClient jdbc, String gpuModel) {
    lock(jdbc, "gshare-placement:" + gpuModel);
  }

  /** A cluster's inventory: one report at a time, and no report while one of its nodes is being removed. */
  public static void inventory(JdbcClient jdbc, String clusterId) {
    lock(jdbc, "gshare-inventory:" + clusterId);
  }

  /**
   * The volumes of one user, of one team, or in one storage pool: a create, restore, expansion request or
   * approval counts the use it checks under these, so two racing ones count each other. Taken in this order
   * (team, user, pool), after the volume's own row lock when there is one.
   */
  public static void volumesOfTeam(JdbcClient jdbc, String teamId) {
    lock(jdbc, "gshare-volumes-team:" + teamId);
  }

  public static void volumesOfUser(JdbcClient jdbc, String userId) {
    lock(jdbc, "gshare-volumes-user:" + userId);
  }

  public static void storagePool(JdbcClient jdbc, String poolId) {
    lock(jdbc, "gshare-storage-pool:" + poolId);
  }

  private static void lock(JdbcClient jdbc, String key) {
    jdbc.sql("select pg_advisory_xact_lock(hashtext(:key))").param("key", key).query((rs, n) -> 1).list();
  }
}
