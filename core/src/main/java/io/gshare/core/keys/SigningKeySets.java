package io.gshare.core.keys;

import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The signing key sets every api replica shares, as sealed bytes (the api seals and unseals them; the database never
 * sees a private key in the clear). Writes are compare-and-set on {@code version}, so two replicas creating or
 * rotating at once never lose each other's keys: the loser reads the winner's set and tries again.
 */
@Repository
public class SigningKeySets {

  /** One stored set: the sealed JWK set and its version. */
  public record Stored(byte[] sealed, long version) {}

  private final JdbcClient jdbc;

  public SigningKeySets(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public Optional<Stored> load(String name) {
    return jdbc.sql("select sealed, version from signing_key_sets where name = :n")
        .param("n", name)
        .query((rs, i) -> new Stored(rs.getBytes("sealed"), rs.getLong("version")))
        .optional();
  }

  /** The version alone: what every replica polls to learn of a rotation; empty when there is no set yet. */
  public Optional<Long> version(String name) {
    return jdbc.sql("select version from signing_key_sets where name = :n").param("n", name).query(Long.class)
        .optional();
  }

  /** Stores the first set (version 1); false when another process stored one first. */
  public boolean create(String name, byte[] sealed) {
    return jdbc.sql("""
        insert into signing_key_sets (name, sealed, version) values (:n, :s, 1)
        on conflict (name) do nothing
        """).param("n", name).param("s", sealed).update() == 1;
  }

  /** Replaces the set at {@code expected} with the next version; false when it has moved on meanwhile. */
  public boolean replace(String name, long expected, byte[] sealed) {
    return jdbc.sql("""
        update signing_key_sets set sealed = :s, version = version + 1, updated_at = now()
        where name = :n and version = :v
        """).param("n", name).param("s", sealed).param("v", expected).update() == 1;
  }
}
