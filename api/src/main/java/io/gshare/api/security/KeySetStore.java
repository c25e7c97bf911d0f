package io.gshare.api.security;

import java.util.Optional;

/**
 * Where one signing key set (a JWK set, as JSON) is kept: a file in the key directory ({@link FileKeySetStore}, one
 * process) or PostgreSQL ({@link DatabaseKeySetStore}, every api replica). Writes compare and set on the version, so
 * replicas that create or rotate at once keep one set.
 */
public interface KeySetStore {

  /** A stored set and the version it had when read. */
  record Versioned(String jwks, long version) {}

  /** The set; empty when none exists yet. */
  Optional<Versioned> load();

  /** The current version alone (a cheap check for a rotation elsewhere); empty when no set exists. */
  Optional<Long> version();

  /** Stores the first set; false when one exists already (another process was first). */
  boolean create(String jwks);

  /** Replaces the set read at {@code expected}; false when it changed since. */
  boolean replace(long expected, String jwks);

  /** A set to start from instead of a generated one (keys an earlier install kept in files); empty: none. */
  default Optional<String> seed() {
    return Optional.empty();
  }

  /** Where the set is, for messages. */
  String describe();
}
