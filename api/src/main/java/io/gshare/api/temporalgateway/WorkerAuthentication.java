package io.gshare.api.temporalgateway;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * The gateway's door: a call goes on only with an operator token in {@code authorization: Bearer} (as the SDK sends
 * an API key) and for a method a worker may make at all; the cluster it speaks for rides in the call's context.
 * Refusals: UNAUTHENTICATED (no token, or one the internal plane refuses), PERMISSION_DENIED naming the rule.
 */
final class WorkerAuthentication implements ServerInterceptor {

  static final Context.Key<String> CLUSTER_ID = Context.key("gshare-cluster-id");
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "bearer ";

  private final OperatorAuthenticator authenticator;
  private final DeniedCalls denied;

  WorkerAuthentication(OperatorAuthenticator authenticator, DeniedCalls denied) {
    this.authenticator = authenticator;
    this.denied = denied;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    String header = headers.get(AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return refuse(call, Status.UNAUTHENTICATED, null, "an operator token is required (authorization: Bearer)");
    }
    String clusterId;
    try {
      clusterId = authenticator.clusterId(header.substring(BEARER.length()).trim());
    } catch (OperatorAuthenticator.Refused e) {
      return refuse(call, Status.UNAUTHENTICATED, null, e.getMessage());
    }
    WorkerCallPolicy.Verdict verdict = WorkerCallPolicy.method(call.getMethodDescriptor().getFullMethodName());
    if (!verdict.allowed()) {
      return refuse(call, Status.PERMISSION_DENIED, clusterId, verdict.rule());
    }
    return Contexts.interceptCall(Context.current().withValue(CLUSTER_ID, clusterId), call, headers, next);
  }

  private <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status, String clusterId, String rule) {
    denied.denied(clusterId, call.getMethodDescriptor().getFullMethodName(), rule);
    call.close(status.withDescription(rule), new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
