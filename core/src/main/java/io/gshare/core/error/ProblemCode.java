package io.gshare.core.error;

import java.net.URI;
import java.util.Locale;

/**
 * Every error the API answers with, by stable code. The code is the last part of the problem
 * {@code type} and is repeated as the {@code code} member, so clients switch on it.
 */
public enum ProblemCode {
  BAD_REQUEST(400, "Bad request"),
  VALIDATION_FAILED(422, "Validation failed"),
  UNAUTHORIZED(401, "Unauthorized"),
  FORBIDDEN(403, "Forbidden"),
  NOT_FOUND(404, "Not found"),
  METHOD_NOT_ALLOWED(405, "Method not allowed"),
  NOT_ACCEPTABLE(406, "Not acceptable"),
  CONFLICT(409, "Conflict"),
  UNSERVICEABLE(409, "Unserviceable"),
  INSUFFICIENT_CAPACITY(409, "Insufficient capacity"),
  INSUFFICIENT_STORAGE(409, "Insufficient storage"),
  INSUFFICIENT_CREDITS(402, "Insufficient credits"),
  QUOTA_EXCEEDED(409, "Quota exceeded"),
  NODE_BUSY(409, "Node busy"),
  NODE_LIVE(409, "Node still reported"),
  VOLUME_IN_USE(409, "Volume in use"),
  OPERATION_IN_PROGRESS(409, "Operation in progress"),
  PAYLOAD_TOO_LARGE(413, "Payload too large"),
  RATE_LIMITED(429, "Too many requests"),
  UNSUPPORTED_MEDIA_TYPE(415, "Unsupported media type"),
  TEMPORAL_UNAVAILABLE(503, "Workflow engine unavailable"),
  DATABASE_UNAVAILABLE(503, "Database unavailable"),
  CLUSTER_UNREACHABLE(504, "Cluster unreachable"),
  INTERNAL(500, "Internal error");

  private static final String TYPE_PREFIX = "urn:gshare:problem:";

  private final int status;
  private final String title;

  ProblemCode(int status, String title) {
    this.status = status;
    this.title = title;
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  /** The wire name, e.g. {@code insufficient_capacity}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  public URI type() {
    return URI.create(TYPE_PREFIX + code());
  }
}
