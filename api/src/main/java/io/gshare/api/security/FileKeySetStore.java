package io.gshare.api.security;

import io.gshare.api.support.SecretFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A key set as a file in the key directory: one process writes it (the dev runtime, a single replica), and a mounted
 * Secret that changes is picked up by its modification time. The version is that time in milliseconds.
 */
public final class FileKeySetStore implements KeySetStore {

  private final Path file;

  public FileKeySetStore(Path file) {
    this.file = file;
  }

  @Override
  public Optional<Versioned> load() {
    try {
      long version = Files.getLastModifiedTime(file).toMillis();
      return Optional.of(new Versioned(Files.readString(file), version));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + file, e);
    }
  }

  @Override
  public Optional<Long> version() {
    try {
      return Optional.of(Files.getLastModifiedTime(file).toMillis());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + file, e);
    }
  }

  @Override
  public boolean create(String jwks) {
    if (Files.exists(file)) {
      return false;
    }
    SecretFiles.write(file, jwks);
    return true;
  }

  /** One process writes the file: the version is not compared (a Secret rewritten outside wins at its next read). */
  @Override
  public boolean replace(long expected, String jwks) {
    SecretFiles.write(file, jwks);
    return true;
  }

  @Override
  public String describe() {
    return file.toString();
  }
}
