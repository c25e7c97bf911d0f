package io.gshare.client;

/** A call that did not get a readable answer: the server unreachable or silent, a redirect, a body not JSON. */
public class ApiCallException extends RuntimeException {

  public ApiCallException(String message) {
    super(message);
  }

  public ApiCallException(String message, Throwable cause) {
    super(message, cause);
  }
}
