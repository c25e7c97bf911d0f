package io.gshare.clusterworker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator token, read from the mounted {@code gshare-operator-internal-jwt} Secret (key
 * {@code internal-jwt}). Re-read whenever the file changes, so a rotated Secret takes effect without
 * a restart (the kubelet swaps the file in place; the modification time tells).
 *
 * <p>A rotation must never lock the worker out: a read that finds the file missing, empty or cut short
 * (a swap in progress, a writer halfway through) keeps the token read before and tries again on the
 * next call. Only a worker that never read a token fails.
 */
final class TokenFile {

  private static final Logger log = LoggerFactory.getLogger(TokenFile.class);

  private final Path path;
  private FileTime readAt;
  private long readSize = -1;
  private String token;

  TokenFile(Path path) {
    this.path = path;
  }

  /** The current token; throws when the file is missing or unusable and no token was read before. */
  synchronized String token() {
    FileTime modified;
    long size;
    String value;
    try {
      modified = Files.getLastModifiedTime(path);
      size = Files.size(path);
      // The size too: a write that lands within the clock's resolution keeps the same modification time.
      if (token != null && modified.equals(readAt) && size == readSize) {
        return token;
      }
      value = Files.readString(path, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      if (token != null) {
        log.warn("cannot read the operator token at {} ({}); keeping the previous one", path, e.toString());
        return token;
      }
      throw new UncheckedIOException("cannot read the operator token at " + path
          + " (is the gshare-operator-internal-jwt Secret mounted?)", e);
    }
    if (!looksLikeJwt(value)) {
      if (token != null) {
        // Not recorded as read: the next call reads the file again, once the writer is done.
        log.warn("the operator token file {} is empty or incomplete; keeping the previous token", path);
        return token;
      }
      throw new IllegalStateException("the operator token file " + path + " is empty or not a JWT");
    }
    token = value;
    readAt = modified;
    readSize = size;
    return token;
  }

  /** Three non-empty base64url parts: anything else is a partial or empty write, never a token. */
  static boolean looksLikeJwt(String value) {
    String[] parts = value.split("\\.", -1);
    if (parts.length != 3) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || !part.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_')) {
        return false;
      }
    }
    return true;
  }
}
