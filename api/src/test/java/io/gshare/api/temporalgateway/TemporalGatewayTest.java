package io.gshare.api.temporalgateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.workflows.common.TaskQueues;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueResponse;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway between a real SDK activity worker and Temporal (the SDK's in-process test server): the worker of
 * cluster A runs its activities through it with its operator token as the API key; a client holding A's token is
 * refused everything else, including another cluster's queue and a task token handed to cluster B.
 */
class TemporalGatewayTest {

  private static final String A = "clu_a";
  private static final String B = "clu_b";

  @WorkflowInterface
  public interface Greeting {
    @WorkflowMethod
    String greet(String clusterId, String name);
  }

  @ActivityInterface
  public interface Greeter {
    String hello(String name);
  }

  public static class GreetingImpl implements Greeting {
    @Override
    public String greet(String clusterId, String name) {
      return Workflow.newActivityStub(Greeter.class, ActivityOptions.newBuilder()
          .setTaskQueue(TaskQueues.cluster(clusterId)).setStartToCloseTimeout(Duration.ofSeconds(20)).build())
          .hello(name);
    }
  }

  private TestWorkflowEnvironment temporal;
  private TemporalGateway gateway;
  private final List<String> denials = new CopyOnWriteArrayList<>();
  private final List<WorkflowServiceStubs> opened = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    temporal = TestWorkflowEnvironment.newInstance();
    Worker control = temporal.newWorker(TaskQueues.CONTROL);
    control.registerWorkflowImplementationTypes(GreetingImpl.class);
    temporal.start();
    TaskTokenSeal seal = new TaskTokenSeal("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
    gateway = TemporalGateway.start(new InetSocketAddress("127.0.0.1", 0),
        temporal.getWorkflowServiceStubs().futureStub(), temporal.getNamespace(), seal, token -> switch (token) {
          case "token-a" -> A;
          case "token-b" -> B;
          default -> throw new OperatorAuthenticator.Refused("token unknown");
        }, (cluster, method, rule) -> denials.add(cluster + ": " + rule));
  }

  @AfterEach
  void stop() {
    opened.forEach(s -> s.shutdownNow());
    gateway.close();
    temporal.close();
  }

  private WorkflowServiceStubs through(String token) {
    WorkflowServiceStubsOptions.Builder options =
        // Plain HTTP/2 on loopback: with an API key the SDK would otherwise speak TLS (the ingress's, in a cluster).
        WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + gateway.port()).setEnableHttps(false);
    if (token != null) {
      options.addApiKey(() -> token);
    }
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options.build());
    opened.add(stubs);
    return stubs;
  }

  private String runGreeting(String clusterId, String name) {
    Greeting greeting = temporal.getWorkflowClient().newWorkflowStub(Greeting.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId("greet-" + name).build());
    return greeting.greet(clusterId, name);
  }

  @Test
  void aClustersWorkerRunsItsActivitiesThroughTheGatewayWithItsOperatorToken() {
    WorkflowClient client = WorkflowClient.newInstance(through("token-a"),
        WorkflowClientOptions.newBuilder().setNamespace(temporal.getNamespace()).build());
    WorkerFactory factory = WorkerFactory.newInstance(client);
    factory.newWorker(TaskQueues.cluster(A)).registerActivitiesImplementations((Greeter) name -> "hello " + name);
    factory.start();
    try {
      assertThat(runGreeting(A, "ada")).isEqualTo("hello ada");
      assertThat(runGreeting(A, "grace")).isEqualTo("hello grace");
    } finally {
      factory.shutdownNow();
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
    assertThat(denials).as("the SDK's worker made no call the gateway refuses").isEmpty();
  }

  @Test
  void aHolderOfClusterAsTokenIsRefusedEverythingButItsOwnTasks() throws Exception {
    WorkflowServiceGrpc.WorkflowServiceBlockingStub hostile = through("token-a").blockingStub()
        .withDeadlineAfter(5, TimeUnit.SECONDS);
    String ns = temporal.getNamespace();
    WorkflowExecution someone = WorkflowExecution.newBuilder().setWorkflowId("greet-someone").build();
    List<Function<WorkflowServiceGrpc.WorkflowServiceBlockingStub, Object>> calls = List.of(
        s -> s.startWorkflowExecution(StartWorkflowExecutionRequest.newBuilder().setNamespace(ns)
            .setWorkflowId("forged").setWorkflowType(WorkflowType.newBuilder().setName("Greeting"))
            .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.CONTROL)).build()),
        s -> s.listWorkflowExecutions(ListWorkflowExecutionsRequest.newBuilder().setNamespace(ns).build()),
        s -> s.terminateWorkflowExecution(TerminateWorkflowExecutionRequest.newBuilder().setNamespace(ns)
            .setWorkflowExecution(someone).build()),
        s -> s.getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(ns)
            .setExecution(someone).build()),
        s -> s.describeTaskQueue(DescribeTaskQueueRequest.newBuilder().setNamespace(ns)
            .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(B))).build()),
        s -> s.pollActivityTaskQueue(PollActivityTaskQueueRequest.newBuilder().setNamespace(ns)
            .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(B))).build()));
    for (var call : calls) {
      assertThatThrownBy(() -> call.apply(hostile)).isInstanceOfSatisfying(StatusRuntimeException.class,
          e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED));
    }
    assertThat(denials).hasSize(calls.size()).allSatisfy(d -> assertThat(d).startsWith(A + ": "));

    // A task handed to cluster B's worker: A may not answer for it; B's answer is the one that counts.
    var greeting = WorkflowClient.start(temporal.getWorkflowClient().newWorkflowStub(Greeting.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId("greet-b").build())::greet,
        B, "bob");
    PollActivityTaskQueueResponse task = through("token-b").blockingStub().withDeadlineAfter(30, TimeUnit.SECONDS)
        .pollActivityTaskQueue(PollActivityTaskQueueRequest.newBuilder().setNamespace(ns)
            .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(B))).build());
    assertThat(task.getTaskToken().isEmpty()).isFalse();
    var forged = RespondActivityTaskCompletedRequest.newBuilder().setNamespace(ns).setTaskToken(task.getTaskToken())
        .setResult(DefaultDataConverter.newDefaultInstance().toPayloads("forged by a").orElseThrow()).build();
    assertThatThrownBy(() -> hostile.respondActivityTaskCompleted(forged))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
          assertThat(e.getStatus().getDescription()).contains("another cluster's worker");
        });
    through("token-b").blockingStub().respondActivityTaskCompleted(forged.toBuilder()
        .setResult(DefaultDataConverter.newDefaultInstance().toPayloads("hello bob").orElseThrow()).build());
    assertThat(temporal.getWorkflowClient().newUntypedWorkflowStub(greeting.getWorkflowId())
        .getResult(10, TimeUnit.SECONDS, String.class)).isEqualTo("hello bob");
  }

  @Test
  void noTokenOrAnUnknownOneIsUnauthenticated() {
    for (String token : new String[] {null, "token-x"}) {
      var stub = through(token).blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS);
      assertThatThrownBy(() -> stub.getSystemInfo(
          io.temporal.api.workflowservice.v1.GetSystemInfoRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
    }
    assertThat(denials).containsExactly("null: an operator token is required (authorization: Bearer)",
        "null: token unknown");
  }
}
