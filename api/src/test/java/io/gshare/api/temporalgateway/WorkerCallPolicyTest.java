package io.gshare.api.temporalgateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.api.enums.v1.TaskQueueKind;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.worker.v1.WorkerHeartbeat;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RecordWorkerHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCanceledRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedByIdRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskFailedRequest;
import io.temporal.api.workflowservice.v1.ShutdownWorkerRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class WorkerCallPolicyTest {

  private static final String NS = "gshare";
  private static final String A = "clu_a";
  private static final String B = "clu_b";
  private final TaskTokenSeal seal = new TaskTokenSeal("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
  private final WorkerCallPolicy policy = new WorkerCallPolicy(NS, seal);
  private final ByteString tokenOfA = ByteString.copyFrom(seal.seal(A, "task of a".getBytes(StandardCharsets.UTF_8)));
  private final ByteString tokenOfB = ByteString.copyFrom(seal.seal(B, "task of b".getBytes(StandardCharsets.UTF_8)));

  private WorkerCallPolicy.Verdict decide(MethodDescriptor<?, ?> method, Message request) {
    return policy.decide(A, method.getFullMethodName(), request);
  }

  @Test
  void theActivityWorkersCallsOnItsOwnQueueNamespaceAndTasksAreAllowed() {
    assertThat(decide(WorkflowServiceGrpc.getGetSystemInfoMethod(), GetSystemInfoRequest.getDefaultInstance())
        .allowed()).isTrue();
    assertThat(decide(WorkflowServiceGrpc.getDescribeNamespaceMethod(),
        DescribeNamespaceRequest.newBuilder().setNamespace(NS).build()).allowed()).isTrue();
    assertThat(decide(WorkflowServiceGrpc.getPollActivityTaskQueueMethod(), poll(NS, TaskQueues.cluster(A),
        TaskQueueKind.TASK_QUEUE_KIND_NORMAL)).allowed()).isTrue();
    assertThat(decide(WorkflowServiceGrpc.getRecordActivityTaskHeartbeatMethod(),
        RecordActivityTaskHeartbeatRequest.newBuilder().setNamespace(NS).setTaskToken(tokenOfA).build()).allowed())
        .isTrue();
    assertThat(decide(WorkflowServiceGrpc.getRespondActivityTaskCompletedMethod(),
        RespondActivityTaskCompletedRequest.newBuilder().setNamespace(NS).setTaskToken(tokenOfA).build()).allowed())
        .isTrue();
    assertThat(decide(WorkflowServiceGrpc.getRespondActivityTaskFailedMethod(),
        RespondActivityTaskFailedRequest.newBuilder().setNamespace(NS).setTaskToken(tokenOfA).build()).allowed())
        .isTrue();
    assertThat(decide(WorkflowServiceGrpc.getRespondActivityTaskCanceledMethod(),
        RespondActivityTaskCanceledRequest.newBuilder().setNamespace(NS).setTaskToken(tokenOfA).build()).allowed())
        .isTrue();
    assertThat(decide(WorkflowServiceGrpc.getRecordWorkerHeartbeatMethod(), RecordWorkerHeartbeatRequest.newBuilder()
        .setNamespace(NS).addWorkerHeartbeat(WorkerHeartbeat.newBuilder().setTaskQueue(TaskQueues.cluster(A)))
        .build()).allowed()).isTrue();
    assertThat(decide(WorkflowServiceGrpc.getShutdownWorkerMethod(),
        ShutdownWorkerRequest.newBuilder().setNamespace(NS).build()).allowed()).isTrue();
  }

  @Test
  void anotherClustersQueueOrTaskTokenIsRefusedNamingTheRule() {
    var poll = decide(WorkflowServiceGrpc.getPollActivityTaskQueueMethod(), poll(NS, TaskQueues.cluster(B),
        TaskQueueKind.TASK_QUEUE_KIND_NORMAL));
    assertThat(poll.allowed()).isFalse();
    assertThat(poll.rule()).contains("polls gshare-cluster-clu_a only, not gshare-cluster-clu_b");
    assertThat(decide(WorkflowServiceGrpc.getPollActivityTaskQueueMethod(), poll(NS, TaskQueues.CONTROL,
        TaskQueueKind.TASK_QUEUE_KIND_NORMAL)).allowed()).isFalse();
    assertThat(decide(WorkflowServiceGrpc.getPollActivityTaskQueueMethod(), poll(NS, TaskQueues.cluster(A),
        TaskQueueKind.TASK_QUEUE_KIND_STICKY)).rule()).contains("sticky");
    var completed = decide(WorkflowServiceGrpc.getRespondActivityTaskCompletedMethod(),
        RespondActivityTaskCompletedRequest.newBuilder().setNamespace(NS).setTaskToken(tokenOfB).build());
    assertThat(completed.allowed()).isFalse();
    assertThat(completed.rule()).contains("another cluster's worker");
    // A token as Temporal issued it, not sealed by the gateway, is nobody's.
    assertThat(decide(WorkflowServiceGrpc.getRecordActivityTaskHeartbeatMethod(),
        RecordActivityTaskHeartbeatRequest.newBuilder().setNamespace(NS)
            .setTaskToken(ByteString.copyFromUtf8("task of a")).build()).allowed()).isFalse();
    assertThat(decide(WorkflowServiceGrpc.getRecordWorkerHeartbeatMethod(), RecordWorkerHeartbeatRequest.newBuilder()
        .setNamespace(NS).addWorkerHeartbeat(WorkerHeartbeat.newBuilder().setTaskQueue(TaskQueues.cluster(B)))
        .build()).allowed()).isFalse();
  }

  @Test
  void anotherNamespaceIsRefusedOnEveryCallThatNamesOne() {
    for (var verdict : List.of(
        decide(WorkflowServiceGrpc.getDescribeNamespaceMethod(),
            DescribeNamespaceRequest.newBuilder().setNamespace("default").build()),
        decide(WorkflowServiceGrpc.getDescribeNamespaceMethod(),
            DescribeNamespaceRequest.newBuilder().setId("0b5e-id").build()),
        decide(WorkflowServiceGrpc.getPollActivityTaskQueueMethod(), poll("default", TaskQueues.cluster(A),
            TaskQueueKind.TASK_QUEUE_KIND_NORMAL)),
        decide(WorkflowServiceGrpc.getRespondActivityTaskFailedMethod(),
            RespondActivityTaskFailedRequest.newBuilder().setNamespace("default").setTaskToken(tokenOfA).build()),
        decide(WorkflowServiceGrpc.getShutdownWorkerMethod(),
            ShutdownWorkerRequest.newBuilder().setNamespace("default").build()),
        decide(WorkflowServiceGrpc.getShutdownWorkerMethod(), ShutdownWorkerRequest.newBuilder().setNamespace(NS)
            .setWorkerHeartbeat(WorkerHeartbeat.newBuilder().setTaskQueue(TaskQueues.cluster(B))).build()))) {
      assertThat(verdict.allowed()).isFalse();
      assertThat(verdict.rule()).isNotBlank();
    }
  }

  @Test
  void everyOtherMethodOfTheServiceIsRefusedByName() {
    List<String> others = Stream.of(WorkflowServiceGrpc.getServiceDescriptor().getMethods().toArray())
        .map(m -> ((MethodDescriptor<?, ?>) m).getFullMethodName())
        .filter(name -> WorkerCallPolicy.call(name) == null).toList();
    assertThat(others).contains(WorkflowServiceGrpc.getStartWorkflowExecutionMethod().getFullMethodName(),
        WorkflowServiceGrpc.getTerminateWorkflowExecutionMethod().getFullMethodName(),
        WorkflowServiceGrpc.getListWorkflowExecutionsMethod().getFullMethodName(),
        WorkflowServiceGrpc.getGetWorkflowExecutionHistoryMethod().getFullMethodName(),
        WorkflowServiceGrpc.getDescribeTaskQueueMethod().getFullMethodName(),
        WorkflowServiceGrpc.getPollWorkflowTaskQueueMethod().getFullMethodName(),
        WorkflowServiceGrpc.getRespondActivityTaskCompletedByIdMethod().getFullMethodName());
    for (String method : others) {
      var verdict = policy.decide(A, method, PollWorkflowTaskQueueRequest.getDefaultInstance());
      assertThat(verdict.allowed()).as(method).isFalse();
      assertThat(verdict.rule()).contains(method);
    }
    assertThat(policy.decide(A, WorkflowServiceGrpc.getRespondActivityTaskCompletedByIdMethod().getFullMethodName(),
        RespondActivityTaskCompletedByIdRequest.newBuilder().setNamespace(NS).build()).allowed()).isFalse();
    assertThat(WorkflowServiceGrpc.getServiceDescriptor().getMethods()).hasSizeGreaterThan(others.size());
  }

  private static PollActivityTaskQueueRequest poll(String namespace, String queue, TaskQueueKind kind) {
    return PollActivityTaskQueueRequest.newBuilder().setNamespace(namespace)
        .setTaskQueue(TaskQueue.newBuilder().setName(queue).setKind(kind)).build();
  }
}
