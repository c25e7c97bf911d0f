package io.gshare.api.security;

import io.gshare.core.keys.SigningKeySets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A key set in PostgreSQL, shared by every api replica, sealed with the {@link DataKey}. An install that kept its
 * keys in files (the key directory of an earlier version) starts from that file, so no token it issued stops
 * verifying when it moves to the database.
 */
public final class DatabaseKeySetStore implements KeySetStore {

  private final SigningKeySets rows;
  private final DataKey key;
  private final String name;
  private final Path earlierFile;

  /** @param earlierFile the file an earlier install kept this set in; read only when the database has none */
  public DatabaseKeySetStore(SigningKeySets rows, DataKey key, String name, Path earlierFile) {
    this.rows = rows;
    this.key = key;
    this.name = name;
    this.earlierFile = earlierFile;
  }

  @Override
  public Optional<Versioned> load() {
    return rows.load(name).map(stored -> new Versioned(
        new String(key.open(owner(), stored.sealed()), StandardCharsets.UTF_8), stored.version()));
  }

  @Override
  public Optional<Long> version() {
    return rows.version(name);
  }

  @Override
  public boolean create(String jwks) {
    return rows.create(name, seal(jwks));
  }

  @Override
  public boolean replace(long expected, String jwks) {
    return rows.replace(name, expected, seal(jwks));
  }

  @Override
  public Optional<String> seed() {
    if (earlierFile == null || !Files.isReadable(earlierFile)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Files.readString(earlierFile));
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + earlierFile, e);
    }
  }

  @Override
  public String describe() {
    return "the database (signing_key_sets " + name + ")";
  }

  private byte[] seal(String jwks) {
    return key.seal(owner(), jwks.getBytes(StandardCharsets.UTF_8));
  }

  private String owner() {
    return "signing-key-set:" + name;
  }
}
