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

  private static void lock(JdbcClient jdbc, String key) {
    jdbc.sql("select pg_advisory_xact_lock(hashtext(:key))").param("key", key).query((rs, n) -> 1).list();
  }
}
