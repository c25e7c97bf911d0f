package io.gshare.api.security;

/** A token that must not be accepted; the message says why, for the 401 and the audit log. */
public class InvalidTokenException extends Exception {

  public InvalidTokenException(String message) {
    super(message);
  }
}
