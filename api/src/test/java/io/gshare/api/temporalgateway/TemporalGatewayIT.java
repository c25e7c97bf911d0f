package io.gshare.api.temporalgateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.api.support.TemporalDevServerSupport;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.client.GshareClient;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.credit.Credits;
import io.gshare.client.node.Node;
import io.gshare.client.session.NewSession;
import io.gshare.sim.SimSeed;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.query.v1.WorkflowQuery;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.update.v1.Input;
import io.temporal.api.update.v1.Request;
import io.temporal.api.workflowservice.v1.DeleteWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.QueryWorkflowRequest;
import io.temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatRequest;
import io.temporal.api.workflowservice.v1.RequestCancelWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.ResetWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedByIdRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.RespondActivityTaskFailedRequest;
import io.temporal.api.workflowservice.v1.SignalWithStartWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The Temporal gateway with everything real around it: cluster A's own cluster-worker process (the local-process
 * deployer's, with exactly the environment its Deployment would give it) reaches Temporal only through the gateway
 * and serves a session from create to drain; a client holding A's operator token (the SDK's raw stubs, then the
 * real {@code temporal} CLI) is refused every other call, a task token sealed for cluster B included, and changes
 * no history in Temporal and no row in PostgreSQL.
 */
class TemporalGatewayIT extends ApiIntegrationTest {

  /** A model no other class attaches, so no class counting its cards sees these. */
  private static final String MODEL = "NVIDIA L20";

  @Autowired WorkflowClient workflows;
  @Autowired TemporalGateway gateway;
  @Autowired TemporalProperties temporal;

  private final List<WorkflowServiceStubs> opened = new ArrayList<>();

  @AfterEach
  void closeStubs() {
    opened.forEach(WorkflowServiceStubs::shutdownNow);
  }

  @Test
  void aClustersWorkerServesItsSessionsThroughTheGatewayAndItsTokenOpensNothingElse() throws Exception {
    AttachedSimulator a = attachSimulator("gwa", new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("l20-0", "exclusive", new SimSeed.GpuSpec(MODEL, 1, 46068, null), Map.of()),
        new SimSeed.NodeSpec("l20-1", "exclusive", new SimSeed.GpuSpec(MODEL, 1, 46068, null), Map.of())), null),
        "gshare." + NewTestIds.next("lab").replace('_', '-') + ".example.com");
    String clusterA = a.clusterId();
    String clusterB = SIM_CLUSTER_ID;
    Map<String, String> workerEnv = workerEnvironment(clusterA);
    assertThat(workerEnv).as("the worker's Temporal is the gateway, its operator token its only credential")
        .containsEntry("GSHARE_TEMPORAL_ADDRESS", "127.0.0.1:" + gateway.port())
        .containsKey("GSHARE_TEMPORAL_API_KEY_FILE")
        .doesNotContainKeys("GSHARE_TEMPORAL_TLS_CERT", "GSHARE_TEMPORAL_TLS_KEY", "GSHARE_DB_URL", "GSHARE_DB_USER");
    assertThat(workerEnv.get("GSHARE_TEMPORAL_API_KEY_FILE")).isEqualTo(workerEnv.get("GSHARE_TOKEN_FILE"));

    // A session from create to drain, every cluster activity through the gateway.
    GshareClient admin = api(adminToken());
    String offering = admin.catalogue().createOffering(new Catalogue.NewOffering(NewTestIds.next("off"), MODEL,
        "exclusive", 1, null, null, BigDecimal.ONE, null)).id();
    String image = admin.catalogue().createImage(new Catalogue.NewImage(NewTestIds.next("img"),
        "registry.example.com/gshare/jupyter:2026.11", null, null, null, null)).id();
    String owner = newUser("user");
    admin.credits().grant(new Credits.Grant(owner, BigDecimal.valueOf(100), null, null));
    GshareClient user = api(tokenFor(owner));
    String session = user.sessions().create(new NewSession(offering, image, null, null, clusterA)).session().id();
    awaitState(user, session, "running");
    user.sessions().pause(session);
    awaitState(user, session, "paused");
    user.sessions().resume(session);
    awaitState(user, session, "running");
    String node = user.sessions().get(session).session().nodeId();
    String drain = admin.nodes().drain(node, new Node.DrainBody("migrate", null, "gateway IT")).operation().id();
    await().atMost(Duration.ofSeconds(150)).ignoreExceptions()
        .until(() -> "completed".equals(admin.operations().get(drain).status()));
    awaitState(user, session, "running");
    assertThat(user.sessions().get(session).session().nodeId()).as("moved off the drained node").isNotEqualTo(node);
    user.sessions().pause(session);
    awaitState(user, session, "paused");
    assertThat(deniedTo(clusterA)).as("the SDK's worker made no call the gateway refuses").isZero();

    // What the attack must leave as it is.
    String sessionWorkflow = WorkflowIds.session(session);
    Map<String, Object> before = snapshot(session, sessionWorkflow);

    String ns = temporal.namespace();
    WorkflowExecution target = WorkflowExecution.newBuilder().setWorkflowId(sessionWorkflow).build();
    TaskQueue control = TaskQueue.newBuilder().setName(TaskQueues.CONTROL).build();
    // A task token the gateway handed to cluster B's worker, as a compromised cluster A might have captured it.
    TaskTokenSeal seal = new TaskTokenSeal(Base64.getDecoder().decode(
        Files.readString(keyDir().resolve(TemporalGatewayConfig.SEAL_SECRET_FILE)).trim()));
    ByteString bsToken = ByteString.copyFrom(seal.seal(clusterB, "captured upstream token".getBytes(StandardCharsets.UTF_8)));
    Map<String, Function<WorkflowServiceGrpc.WorkflowServiceBlockingStub, Object>> calls = new LinkedHashMap<>();
    calls.put("start", s -> s.startWorkflowExecution(StartWorkflowExecutionRequest.newBuilder().setNamespace(ns)
        .setWorkflowId("forged-" + session).setWorkflowType(WorkflowType.newBuilder().setName("SessionWorkflow"))
        .setTaskQueue(control).setRequestId("forged").build()));
    calls.put("signal", s -> s.signalWorkflowExecution(SignalWorkflowExecutionRequest.newBuilder().setNamespace(ns)
        .setWorkflowExecution(target).setSignalName("terminate").build()));
    calls.put("signal-with-start", s -> s.signalWithStartWorkflowExecution(SignalWithStartWorkflowExecutionRequest
        .newBuilder().setNamespace(ns).setWorkflowId(sessionWorkflow).setSignalName("terminate")
        .setWorkflowType(WorkflowType.newBuilder().setName("SessionWorkflow")).setTaskQueue(control).build()));
    calls.put("update", s -> s.updateWorkflowExecution(UpdateWorkflowExecutionRequest.newBuilder().setNamespace(ns)
        .setWorkflowExecution(target).setRequest(Request.newBuilder().setInput(Input.newBuilder().setName("resume")))
        .build()));
    calls.put("terminate", s -> s.terminateWorkflowExecution(TerminateWorkflowExecutionRequest.newBuilder()
        .setNamespace(ns).setWorkflowExecution(target).setReason("compromised").build()));
    calls.put("cancel", s -> s.requestCancelWorkflowExecution(RequestCancelWorkflowExecutionRequest.newBuilder()
        .setNamespace(ns).setWorkflowExecution(target).build()));
    calls.put("reset", s -> s.resetWorkflowExecution(ResetWorkflowExecutionRequest.newBuilder().setNamespace(ns)
        .setWorkflowExecution(target).setWorkflowTaskFinishEventId(3).setRequestId("forged").build()));
    calls.put("delete", s -> s.deleteWorkflowExecution(DeleteWorkflowExecutionRequest.newBuilder().setNamespace(ns)
        .setWorkflowExecution(target).build()));
    calls.put("query", s -> s.queryWorkflow(QueryWorkflowRequest.newBuilder().setNamespace(ns)
        .setExecution(target).setQuery(WorkflowQuery.newBuilder().setQueryType("view")).build()));
    calls.put("describe", s -> s.describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
        .setNamespace(ns).setExecution(target).build()));
    calls.put("list", s -> s.listWorkflowExecutions(ListWorkflowExecutionsRequest.newBuilder().setNamespace(ns).build()));
    calls.put("history", s -> s.getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder()
        .setNamespace(ns).setExecution(target).build()));
    calls.put("poll B's queue", s -> s.pollActivityTaskQueue(PollActivityTaskQueueRequest.newBuilder()
        .setNamespace(ns).setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(clusterB))).build()));
    calls.put("poll workflow tasks", s -> s.pollWorkflowTaskQueue(PollWorkflowTaskQueueRequest.newBuilder()
        .setNamespace(ns).setTaskQueue(control).build()));
    calls.put("poll in another namespace", s -> s.pollActivityTaskQueue(PollActivityTaskQueueRequest.newBuilder()
        .setNamespace("temporal-system").setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(clusterA)))
        .build()));
    calls.put("another namespace", s -> s.describeNamespace(DescribeNamespaceRequest.newBuilder()
        .setNamespace("temporal-system").build()));
    calls.put("describe B's queue", s -> s.describeTaskQueue(DescribeTaskQueueRequest.newBuilder().setNamespace(ns)
        .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.cluster(clusterB))).build()));
    calls.put("complete by id", s -> s.respondActivityTaskCompletedById(RespondActivityTaskCompletedByIdRequest
        .newBuilder().setNamespace(ns).setWorkflowId(sessionWorkflow).setActivityId("1").build()));
    calls.put("complete B's task", s -> s.respondActivityTaskCompleted(RespondActivityTaskCompletedRequest
        .newBuilder().setNamespace(ns).setTaskToken(bsToken).build()));
    calls.put("fail B's task", s -> s.respondActivityTaskFailed(RespondActivityTaskFailedRequest.newBuilder()
        .setNamespace(ns).setTaskToken(bsToken).build()));
    calls.put("heartbeat B's task", s -> s.recordActivityTaskHeartbeat(RecordActivityTaskHeartbeatRequest
        .newBuilder().setNamespace(ns).setTaskToken(bsToken).build()));

    WorkflowServiceGrpc.WorkflowServiceBlockingStub hostile = through(operatorToken(clusterA));
    assertThat(hostile.getSystemInfo(GetSystemInfoRequest.getDefaultInstance())).as("A's token itself is good")
        .isNotNull();
    Map<String, String> refusals = new LinkedHashMap<>();
    calls.forEach((name, call) -> assertThatThrownBy(() -> call.apply(hostile)).as(name)
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).as(name + ": " + e.getStatus()).isEqualTo(Status.Code.PERMISSION_DENIED);
          refusals.put(name, e.getStatus().getDescription());
        }));
    assertThat(refusals.get("complete B's task")).contains("another cluster's worker");
    assertThat(refusals.get("poll B's queue")).contains("polls " + TaskQueues.cluster(clusterA) + " only");
    // No token, a user's token and a token of no cluster: unauthenticated.
    for (String token : new String[] {null, tokenFor(newUser("user")), "not.a.jwt"}) {
      assertThatThrownBy(() -> through(token).getSystemInfo(GetSystemInfoRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
    }

    // The same through the real temporal CLI with A's token as its API key.
    String tokenA = operatorToken(clusterA);
    for (List<String> command : List.of(List.of("workflow", "list"),
        List.of("workflow", "terminate", "--workflow-id", sessionWorkflow, "--reason", "compromised"),
        List.of("task-queue", "describe", "--task-queue", TaskQueues.cluster(clusterB)))) {
      CliResult result = temporalCli(command, tokenA);
      assertThat(result.exit()).as(command + ": " + result.output()).isNotZero();
      // The CLI prints the status's message: the gateway's rule.
      assertThat(result.output()).as(command.toString())
          .contains("a cluster's worker may make only the activity worker's calls");
    }

    assertThat(snapshot(session, sessionWorkflow)).as("nothing the attack aimed at changed").isEqualTo(before);
    assertThat(workflows.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(ns).setExecution(target).build())
        .getWorkflowExecutionInfo().getStatus()).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThatThrownBy(() -> workflows.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(ns).setExecution(WorkflowExecution.newBuilder()
            .setWorkflowId("forged-" + session)).build())).as("no forged workflow started")
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    // Each refusal is an access.denied audit event on kind temporal (de-duplicated per minute and method).
    assertThat(deniedTo(clusterA)).isPositive();
    user.sessions().terminate(session);
    awaitState(user, session, "terminated");
  }

  private WorkflowServiceGrpc.WorkflowServiceBlockingStub through(String token) {
    WorkflowServiceStubsOptions.Builder options = WorkflowServiceStubsOptions.newBuilder()
        .setTarget("127.0.0.1:" + gateway.port()).setEnableHttps(false);
    if (token != null) {
      options.addApiKey(() -> token);
    }
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options.build());
    opened.add(stubs);
    return stubs.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private record CliResult(int exit, String output) {}

  private CliResult temporalCli(List<String> command, String apiKey) throws IOException, InterruptedException {
    Path cli = TemporalDevServerSupport.cli();
    List<String> argv = new ArrayList<>(List.of(cli.toString()));
    argv.addAll(command);
    argv.addAll(List.of("--address", "127.0.0.1:" + gateway.port(), "--namespace", temporal.namespace(),
        "--api-key", apiKey, "--tls=false", "--command-timeout", "20s"));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new CliResult(process.exitValue(), output);
  }

  /** The rows and history the attack aims at: the session, its money, its allocations and its workflow. */
  private Map<String, Object> snapshot(String session, String workflowId) {
    Map<String, Object> state = new LinkedHashMap<>();
    state.put("session", jdbc.sql("select row_to_json(s)::text from sessions s where id = :id").param("id", session)
        .query(String.class).single());
    state.put("allocations", jdbc.sql("select coalesce(json_agg(a order by a.gpu_uuid)::text, '') from allocations a"
        + " where session_id = :id").param("id", session).query(String.class).single());
    state.put("billing", jdbc.sql("select coalesce(json_agg(b order by b.id)::text, '') from billing_windows b"
        + " where session_id = :id").param("id", session).query(String.class).single());
    state.put("ledger", jdbc.sql("select count(*) from credit_ledger where session_id = :id").param("id", session)
        .query(Long.class).single());
    state.put("history", workflows.fetchHistory(workflowId).getEvents().size());
    return state;
  }

  private long deniedTo(String clusterId) {
    return jdbc.sql("select count(*) from audit_events where action = 'access.denied' and actor = :actor"
        + " and object_kind = 'temporal'").param("actor", "operator:" + clusterId).query(Long.class).single();
  }

  private static void awaitState(GshareClient user, String session, String state) {
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(300)).ignoreExceptions()
        .untilAsserted(() -> assertThat(user.sessions().get(session).session().state()).isEqualTo(state));
  }

  /** The environment the running worker process of {@code clusterId} was started with (Linux's /proc). */
  private static Map<String, String> workerEnvironment(String clusterId) throws IOException {
    for (ProcessHandle process : ProcessHandle.allProcesses().toList()) {
      Path environ = Path.of("/proc", String.valueOf(process.pid()), "environ");
      if (!process.info().commandLine().orElse("").contains("gshare-cluster-worker.jar") || !Files.isReadable(environ)) {
        continue;
      }
      Map<String, String> env = new LinkedHashMap<>();
      for (String entry : new String(Files.readAllBytes(environ), StandardCharsets.UTF_8).split("\0")) {
        int eq = entry.indexOf('=');
        if (eq > 0) {
          env.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
      }
      if (clusterId.equals(env.get("GSHARE_CLUSTER_ID"))) {
        return env;
      }
    }
    throw new AssertionError("no cluster-worker process of " + clusterId);
  }
}
