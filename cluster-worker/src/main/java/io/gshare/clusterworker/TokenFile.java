package io.gshare.clusterworker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * The operator token, read from the mounted {@code gshare-operator-internal-jwt} Secret (key
 * {@code internal-jwt}). Re-read whenever the file changes, so a rotated Secret takes effect without
 * a restart (the kubelet swaps the file in place; the modification time tells).
 */
final class TokenFile {

  private final Path path;
  private FileTime readAt;
  private String token;

  TokenFile(Path path) {
    this.path = path;
  }

  /** The current token; throws when the file is missing or empty. */
  synchronized String token() {
    try {
      FileTime modified = Files.getLastModifiedTime(path);
      if (token == null || !modified.equals(readAt)) {
        String value = Files.readString(path, StandardCharsets.UTF_8).trim();
        if (value.isEmpty()) {
          throw new IllegalStateException("the operator token file " + path + " is empty");
        }
        token = value;
        readAt = modified;
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the operator token at " + path
          + " (is the gshare-operator-internal-jwt Secret mounted?)", e);
    }
  }
}
