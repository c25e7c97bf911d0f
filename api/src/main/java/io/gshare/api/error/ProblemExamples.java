package io.gshare.api.error;

import io.gshare.core.error.ProblemCode;
import java.util.List;
import java.util.Map;

/** What each code's example in the served document says: a typical detail and the members it carries. */
final class ProblemExamples {

  private ProblemExamples() {}

  /** Exhaustive over {@link ProblemCode}: a new code does not compile until it has its example. */
  static String detail(ProblemCode code) {
    return switch (code) {
      case BAD_REQUEST -> "the request body is not valid JSON for this endpoint";
      case VALIDATION_FAILED -> "the request has invalid values";
      case UNAUTHORIZED -> "no bearer token (or an expired, revoked or other kind of token; a signed-in browser's"
          + " state-changing call without the CSRF header)";
      case FORBIDDEN -> "this action requires the admin role";
      case NOT_FOUND -> "no such object, or not one of yours";
      case METHOD_NOT_ALLOWED -> "Method 'PUT' is not supported.";
      case NOT_ACCEPTABLE -> "the Accept header names no media type this operation answers";
      case CONFLICT -> "the object's state does not allow this now, or the name is taken";
      case UNSERVICEABLE -> "no active offering of this model, or no card of it you may use";
      case INSUFFICIENT_CAPACITY -> "every card of this model you may use is taken now; retry later";
      case INSUFFICIENT_STORAGE -> "the storage pool has not enough free capacity";
      case INSUFFICIENT_CREDITS -> "starting needs a balance of at least the policy's minimum and one hour";
      case QUOTA_EXCEEDED -> "your policy's limit is reached";
      case NODE_BUSY -> "the node still has sessions: end or move them first";
      case NODE_LIVE -> "the node is still reported by its cluster's worker";
      case VOLUME_IN_USE -> "a session not ended holds the volume";
      case OPERATION_IN_PROGRESS -> "operation node-drain-nod_0123abcd is already running";
      case PAYLOAD_TOO_LARGE -> "the request body exceeds 1024 KiB";
      case RATE_LIMITED -> "more than 20 session and volume commands a second from this user; retry in a second";
      case UNSUPPORTED_MEDIA_TYPE -> "Content-Type 'text/plain' is not supported.";
      case TEMPORAL_UNAVAILABLE -> "the workflow engine (Temporal) did not answer; retry shortly";
      case DATABASE_UNAVAILABLE -> "the database (PostgreSQL) did not answer; retry shortly";
      case CLUSTER_UNREACHABLE -> "the cluster's worker did not answer in time";
      case INTERNAL -> "an internal error occurred";
    };
  }

  static Map<String, Object> members(ProblemCode code) {
    return switch (code) {
      case VALIDATION_FAILED -> Map.of("errors", List.of(Map.of("field", "name", "message", "must not be blank")));
      case OPERATION_IN_PROGRESS -> Map.of("operation_id", "node-drain-nod_0123abcd");
      case RATE_LIMITED -> Map.of("retry_after_seconds", 1);
      default -> Map.of();
    };
  }
}
