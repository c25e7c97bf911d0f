package io.gshare.api.temporalgateway;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.api.enums.v1.TaskQueueKind;
import io.temporal.api.worker.v1.WorkerHeartbeat;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RecordWorkerHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCanceledRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskFailedRequest;
import io.temporal.api.workflowservice.v1.ShutdownWorkerRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a cluster's worker ({@code operator:<clusterId>}) may ask of Temporal through the gateway: the calls the Java
 * SDK's activity worker makes, in gShare's namespace, for its own queue {@code gshare-cluster-<clusterId>} and the
 * tasks handed to it; nothing else. A pure function of the caller's cluster, the method and the request, so that the
 * gateway's wiring holds no rule and every rule is tested without a server.
 *
 * <p>Refused, each with the rule's name: any other method (starting, signalling, updating, terminating, querying,
 * describing or listing workflows, reading histories, polling workflow or Nexus tasks, the {@code ...ById} answers
 * that name a workflow instead of a task), another namespace, another queue or a sticky one, a task token handed
 * to another cluster ({@link TaskTokenSeal}). The sticky queue the SDK names when its worker shuts down is not
 * forwarded ({@link GatewayService}): a cluster's worker runs no workflow, and a name is all it would take to
 * clear another worker's.
 */
public final class WorkerCallPolicy {

  /** A call a worker may make, and what of its request must be its own. */
  enum WorkerCall {
    GET_SYSTEM_INFO(WorkflowServiceGrpc.getGetSystemInfoMethod()),
    DESCRIBE_NAMESPACE(WorkflowServiceGrpc.getDescribeNamespaceMethod()),
    POLL_ACTIVITY_TASK_QUEUE(WorkflowServiceGrpc.getPollActivityTaskQueueMethod()),
    RECORD_ACTIVITY_TASK_HEARTBEAT(WorkflowServiceGrpc.getRecordActivityTaskHeartbeatMethod()),
    RESPOND_ACTIVITY_TASK_COMPLETED(WorkflowServiceGrpc.getRespondActivityTaskCompletedMethod()),
    RESPOND_ACTIVITY_TASK_FAILED(WorkflowServiceGrpc.getRespondActivityTaskFailedMethod()),
    RESPOND_ACTIVITY_TASK_CANCELED(WorkflowServiceGrpc.getRespondActivityTaskCanceledMethod()),
    RECORD_WORKER_HEARTBEAT(WorkflowServiceGrpc.getRecordWorkerHeartbeatMethod()),
    SHUTDOWN_WORKER(WorkflowServiceGrpc.getShutdownWorkerMethod());

    private final String fullMethodName;

    WorkerCall(MethodDescriptor<?, ?> method) {
      this.fullMethodName = method.getFullMethodName();
    }

    String fullMethodName() {
      return fullMethodName;
    }

    /** Whether the call carries a task token the gateway sealed (and must unseal before forwarding). */
    boolean carriesTaskToken() {
      return this == RECORD_ACTIVITY_TASK_HEARTBEAT || this == RESPOND_ACTIVITY_TASK_COMPLETED
          || this == RESPOND_ACTIVITY_TASK_FAILED || this == RESPOND_ACTIVITY_TASK_CANCELED;
    }
  }

  /** The verdict on one call: allowed, or refused naming the rule it broke (the text of PERMISSION_DENIED). */
  public record Verdict(boolean allowed, String rule) {
    static final Verdict ALLOWED = new Verdict(true, null);

    static Verdict refused(String rule) {
      return new Verdict(false, Objects.requireNonNull(rule));
    }
  }

  private static final Map<String, WorkerCall> BY_METHOD = Stream.of(WorkerCall.values())
      .collect(Collectors.toUnmodifiableMap(WorkerCall::fullMethodName, Function.identity()));

  private final String namespace;
  private final TaskTokenSeal seal;

  public WorkerCallPolicy(String namespace, TaskTokenSeal seal) {
    this.namespace = Objects.requireNonNull(namespace);
    this.seal = Objects.requireNonNull(seal);
  }

  /** The worker call {@code fullMethodName} is, or null when it is none. */
  static WorkerCall call(String fullMethodName) {
    return BY_METHOD.get(fullMethodName);
  }

  /** Whether a worker may make this call at all, before its request is read (the gateway's door asks). */
  static Verdict method(String fullMethodName) {
    return call(fullMethodName) != null ? Verdict.ALLOWED
        : Verdict.refused("a cluster's worker may make only the activity worker's calls, not " + fullMethodName);
  }

  /** Whether {@code clusterId}'s worker may make this call with this request. */
  public Verdict decide(String clusterId, String fullMethodName, Message request) {
    WorkerCall call = call(fullMethodName);
    if (call == null) {
      return method(fullMethodName);
    }
    String ownQueue = TaskQueues.cluster(clusterId);
    return switch (call) {
      case GET_SYSTEM_INFO -> Verdict.ALLOWED;
      case DESCRIBE_NAMESPACE -> {
        DescribeNamespaceRequest r = (DescribeNamespaceRequest) request;
        yield r.getId().isEmpty() ? ownNamespace(r.getNamespace())
            : Verdict.refused("a namespace is described by its name, " + namespace);
      }
      case POLL_ACTIVITY_TASK_QUEUE -> {
        PollActivityTaskQueueRequest r = (PollActivityTaskQueueRequest) request;
        Verdict ns = ownNamespace(r.getNamespace());
        if (!ns.allowed()) {
          yield ns;
        }
        if (!ownQueue.equals(r.getTaskQueue().getName())) {
          yield Verdict.refused("cluster " + clusterId + "'s worker polls " + ownQueue + " only, not "
              + r.getTaskQueue().getName());
        }
        yield r.getTaskQueue().getKind() == TaskQueueKind.TASK_QUEUE_KIND_STICKY
            ? Verdict.refused("a cluster's worker polls no sticky queue") : Verdict.ALLOWED;
      }
      case RECORD_ACTIVITY_TASK_HEARTBEAT -> token(clusterId,
          ((RecordActivityTaskHeartbeatRequest) request).getNamespace(),
          ((RecordActivityTaskHeartbeatRequest) request).getTaskToken());
      case RESPOND_ACTIVITY_TASK_COMPLETED -> token(clusterId,
          ((RespondActivityTaskCompletedRequest) request).getNamespace(),
          ((RespondActivityTaskCompletedRequest) request).getTaskToken());
      case RESPOND_ACTIVITY_TASK_FAILED -> token(clusterId,
          ((RespondActivityTaskFailedRequest) request).getNamespace(),
          ((RespondActivityTaskFailedRequest) request).getTaskToken());
      case RESPOND_ACTIVITY_TASK_CANCELED -> token(clusterId,
          ((RespondActivityTaskCanceledRequest) request).getNamespace(),
          ((RespondActivityTaskCanceledRequest) request).getTaskToken());
      case RECORD_WORKER_HEARTBEAT -> {
        RecordWorkerHeartbeatRequest r = (RecordWorkerHeartbeatRequest) request;
        Verdict ns = ownNamespace(r.getNamespace());
        yield ns.allowed() ? ownHeartbeats(clusterId, ownQueue, r.getWorkerHeartbeatList()) : ns;
      }
      case SHUTDOWN_WORKER -> {
        ShutdownWorkerRequest r = (ShutdownWorkerRequest) request;
        Verdict ns = ownNamespace(r.getNamespace());
        if (!ns.allowed()) {
          yield ns;
        }
        yield r.hasWorkerHeartbeat() ? ownHeartbeats(clusterId, ownQueue, List.of(r.getWorkerHeartbeat()))
            : Verdict.ALLOWED;
      }
    };
  }

  private Verdict ownNamespace(String requested) {
    return namespace.equals(requested) ? Verdict.ALLOWED
        : Verdict.refused("a cluster's worker works in namespace " + namespace + " only, not " + requested);
  }

  private Verdict token(String clusterId, String requestedNamespace, ByteString sealed) {
    Verdict ns = ownNamespace(requestedNamespace);
    if (!ns.allowed()) {
      return ns;
    }
    try {
      seal.unseal(clusterId, sealed.toByteArray());
      return Verdict.ALLOWED;
    } catch (TaskTokenSeal.ForeignTaskToken e) {
      return Verdict.refused(e.getMessage());
    }
  }

  private static Verdict ownHeartbeats(String clusterId, String ownQueue, List<WorkerHeartbeat> beats) {
    for (WorkerHeartbeat beat : beats) {
      if (!ownQueue.equals(beat.getTaskQueue())) {
        return Verdict.refused("cluster " + clusterId + "'s worker reports on " + ownQueue + " only, not "
            + beat.getTaskQueue());
      }
    }
    return Verdict.ALLOWED;
  }
}
