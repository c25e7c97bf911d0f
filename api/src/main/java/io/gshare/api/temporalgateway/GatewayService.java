package io.gshare.api.temporalgateway;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.DescribeNamespaceResponse;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueResponse;
import io.temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatResponse;
import io.temporal.api.workflowservice.v1.RecordWorkerHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RecordWorkerHeartbeatResponse;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCanceledRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCanceledResponse;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedResponse;
import io.temporal.api.workflowservice.v1.RespondActivityTaskFailedRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskFailedResponse;
import io.temporal.api.workflowservice.v1.ShutdownWorkerRequest;
import io.temporal.api.workflowservice.v1.ShutdownWorkerResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Temporal's {@code WorkflowService} as a cluster's worker sees it through the gateway: the calls
 * {@link WorkerCallPolicy} allows, each forwarded to the real frontend with the control plane's own connection (and
 * so its credentials), the worker's deadline and cancellation passed on; task tokens sealed for the worker's
 * cluster on the way out and unsealed on the way back. Every other method is refused before it gets here
 * ({@link WorkerAuthentication}); what is refused here is a request that names another namespace, queue or
 * cluster's task.
 */
final class GatewayService extends WorkflowServiceGrpc.WorkflowServiceImplBase {

  /** The deadline of a call that came without one: a long poll's (the server answers empty at 60 s). */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(70);

  private final WorkflowServiceGrpc.WorkflowServiceFutureStub upstream;
  private final WorkerCallPolicy policy;
  private final TaskTokenSeal seal;
  private final DeniedCalls denied;

  GatewayService(WorkflowServiceGrpc.WorkflowServiceFutureStub upstream, WorkerCallPolicy policy, TaskTokenSeal seal,
      DeniedCalls denied) {
    this.upstream = upstream;
    this.policy = policy;
    this.seal = seal;
    this.denied = denied;
  }

  @Override
  public void getSystemInfo(GetSystemInfoRequest request, StreamObserver<GetSystemInfoResponse> response) {
    forward(WorkflowServiceGrpc.getGetSystemInfoMethod(), request, response, s -> s.getSystemInfo(request),
        UnaryOperator.identity());
  }

  @Override
  public void describeNamespace(DescribeNamespaceRequest request, StreamObserver<DescribeNamespaceResponse> response) {
    forward(WorkflowServiceGrpc.getDescribeNamespaceMethod(), request, response, s -> s.describeNamespace(request),
        UnaryOperator.identity());
  }

  @Override
  public void pollActivityTaskQueue(PollActivityTaskQueueRequest request,
      StreamObserver<PollActivityTaskQueueResponse> response) {
    String clusterId = WorkerAuthentication.CLUSTER_ID.get();
    forward(WorkflowServiceGrpc.getPollActivityTaskQueueMethod(), request, response,
        s -> s.pollActivityTaskQueue(request),
        task -> task.getTaskToken().isEmpty() ? task : task.toBuilder()
            .setTaskToken(ByteString.copyFrom(seal.seal(clusterId, task.getTaskToken().toByteArray()))).build());
  }

  @Override
  public void recordActivityTaskHeartbeat(RecordActivityTaskHeartbeatRequest request,
      StreamObserver<RecordActivityTaskHeartbeatResponse> response) {
    forward(WorkflowServiceGrpc.getRecordActivityTaskHeartbeatMethod(), request, response,
        s -> s.recordActivityTaskHeartbeat(request.toBuilder().setTaskToken(upstreamToken(request.getTaskToken()))
            .build()), UnaryOperator.identity());
  }

  @Override
  public void respondActivityTaskCompleted(RespondActivityTaskCompletedRequest request,
      StreamObserver<RespondActivityTaskCompletedResponse> response) {
    forward(WorkflowServiceGrpc.getRespondActivityTaskCompletedMethod(), request, response,
        s -> s.respondActivityTaskCompleted(request.toBuilder().setTaskToken(upstreamToken(request.getTaskToken()))
            .build()), UnaryOperator.identity());
  }

  @Override
  public void respondActivityTaskFailed(RespondActivityTaskFailedRequest request,
      StreamObserver<RespondActivityTaskFailedResponse> response) {
    forward(WorkflowServiceGrpc.getRespondActivityTaskFailedMethod(), request, response,
        s -> s.respondActivityTaskFailed(request.toBuilder().setTaskToken(upstreamToken(request.getTaskToken()))
            .build()), UnaryOperator.identity());
  }

  @Override
  public void respondActivityTaskCanceled(RespondActivityTaskCanceledRequest request,
      StreamObserver<RespondActivityTaskCanceledResponse> response) {
    forward(WorkflowServiceGrpc.getRespondActivityTaskCanceledMethod(), request, response,
        s -> s.respondActivityTaskCanceled(request.toBuilder().setTaskToken(upstreamToken(request.getTaskToken()))
            .build()), UnaryOperator.identity());
  }

  @Override
  public void recordWorkerHeartbeat(RecordWorkerHeartbeatRequest request,
      StreamObserver<RecordWorkerHeartbeatResponse> response) {
    forward(WorkflowServiceGrpc.getRecordWorkerHeartbeatMethod(), request, response,
        s -> s.recordWorkerHeartbeat(request), UnaryOperator.identity());
  }

  @Override
  public void shutdownWorker(ShutdownWorkerRequest request, StreamObserver<ShutdownWorkerResponse> response) {
    // Its sticky queue goes no further: it runs no workflow, and the name is all that would clear another's.
    forward(WorkflowServiceGrpc.getShutdownWorkerMethod(), request, response,
        s -> s.shutdownWorker(request.toBuilder().clearStickyTaskQueue().build()), UnaryOperator.identity());
  }

  /** The token Temporal issued; the policy has checked the seal before this runs. */
  private ByteString upstreamToken(ByteString sealed) {
    return ByteString.copyFrom(seal.unseal(WorkerAuthentication.CLUSTER_ID.get(), sealed.toByteArray()));
  }

  private <Q extends Message, R> void forward(MethodDescriptor<Q, R> method, Q request, StreamObserver<R> response,
      Function<WorkflowServiceGrpc.WorkflowServiceFutureStub, ListenableFuture<R>> call, UnaryOperator<R> rewrite) {
    String clusterId = WorkerAuthentication.CLUSTER_ID.get();
    WorkerCallPolicy.Verdict verdict = policy.decide(clusterId, method.getFullMethodName(), request);
    if (!verdict.allowed()) {
      denied.denied(clusterId, method.getFullMethodName(), verdict.rule());
      response.onError(Status.PERMISSION_DENIED.withDescription(verdict.rule()).asRuntimeException());
      return;
    }
    Context context = Context.current();
    Deadline deadline = context.getDeadline();
    WorkflowServiceGrpc.WorkflowServiceFutureStub stub = deadline != null ? upstream.withDeadline(deadline)
        : upstream.withDeadlineAfter(DEFAULT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    ListenableFuture<R> answer = call.apply(stub);
    // The worker gave up (its deadline, its shutdown): so does the upstream call.
    context.addListener(c -> answer.cancel(true), MoreExecutors.directExecutor());
    Futures.addCallback(answer, new FutureCallback<>() {
      @Override
      public void onSuccess(R result) {
        response.onNext(rewrite.apply(result));
        response.onCompleted();
      }

      @Override
      public void onFailure(Throwable t) {
        response.onError(Status.fromThrowable(t).asRuntimeException(Status.trailersFromThrowable(t)));
      }
    }, MoreExecutors.directExecutor());
  }
}
