package io.gshare.cli.support;

/** A failure the CLI explains itself (not signed in, a timeout, an unreachable server): message on stderr, exit 1. */
public class CliException extends RuntimeException {

  public CliException(String message) {
    super(message);
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
