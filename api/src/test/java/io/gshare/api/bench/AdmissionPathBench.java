package io.gshare.api.bench;

import io.gshare.api.support.InventoryFixture;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.error.GshareException;
import io.gshare.core.placement.PlacementService;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Benchmark, not a test: the two shapes an admission can take, on the same admission and placement
 * transaction ({@link PlacementService#allocate}) against the real PostgreSQL and the Temporal CLI's dev
 * server, with the same number of concurrent clients.
 *
 * <ul>
 *   <li><b>today's path</b>: the api admits and places in its own transaction, then starts the workflow
 *       (eagerly: the first workflow task comes back in the start response to this process's worker);
 *   <li><b>Update-With-Start</b>: one call starts the workflow and waits for an admission update whose
 *       handler places through a local activity, so the placement lives inside the workflow and the
 *       answer (placed, or 409/402 as an update failure) still comes back in the same request.
 * </ul>
 *
 * <p>The workflows are bench-only and end once admitted; placed sessions are released outside the
 * timing, so capacity never runs out. The paths alternate (A, B, A, B) so that drift shows.
 *
 * <p>Run: {@code make bench-admission} (or {@code BENCH_ARGS="clients createsPerClient"}, default {@code 32 40}).
 */
public final class AdmissionPathBench {

  static final String QUEUE = "gshare-bench-admission";

  private AdmissionPathBench() {}

  public static void main(String[] args) {
    BenchSupport.main(args, AdmissionPathBench::run);
  }

  /** What the update carries: the session row already written, whose GPUs to place. */
  public record Admit(String sessionId, String userId, String offeringId) {}

  @WorkflowInterface
  public interface AdmittedWorkflow {
    @WorkflowMethod
    String run();

    @UpdateMethod
    String admit(Admit request);
  }

  @ActivityInterface
  public interface AdmissionActivities {
    String place(Admit request);
  }

  /** Ends once admitted (or refused); the update's handler places through a local activity. */
  public static class AdmittedWorkflowImpl implements AdmittedWorkflow {

    private final AdmissionActivities local = Workflow.newLocalActivityStub(AdmissionActivities.class,
        LocalActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10))
            .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3)
                .setDoNotRetry(GshareException.class.getName()).build())
            .build());
    private String outcome;

    @Override
    public String run() {
      Workflow.await(() -> outcome != null);
      return outcome;
    }

    @Override
    public String admit(Admit request) {
      try {
        outcome = local.place(request);
        return outcome;
      } catch (ActivityFailure refused) {
        outcome = "refused";
        throw ApplicationFailure.newNonRetryableFailure(refused.getCause().getMessage(), "admission_refused");
      }
    }
  }

  private static void run(String[] args) throws Exception {
    int clients = BenchSupport.arg(args, 0, 32);
    int perClient = BenchSupport.arg(args, 1, 40);
    try (ConfigurableApplicationContext context = BenchSupport.startApi(
        Map.of("spring.datasource.hikari.maximum-pool-size", String.valueOf(clients + 8)))) {
      JdbcClient jdbc = context.getBean(JdbcClient.class);
      PlacementService placement = context.getBean(PlacementService.class);
      WorkflowClient client = context.getBean(WorkflowClient.class);
      InventoryFixture inventory = new InventoryFixture(jdbc);
      String model = "NVIDIA A100-SXM4-40GB";
      for (int c = 0; c < 4; c++) {
        String cluster = inventory.cluster();
        for (int n = 0; n < 8; n++) {
          inventory.node(cluster, "fractional", model, 4, 40960, 10, null);
        }
      }
      String slice = inventory.offering(model, "fractional", null, 4096, 10, 1);
      CreditLedger ledger = context.getBean(CreditLedger.class);
      List<String> users = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        String user = "usr_bench" + i;
        jdbc.sql("insert into users (id, email) values (:id, :e)").param("id", user).param("e", user + "@example.com").update();
        ledger.grant(user, new BigDecimal("1000000"), "bench-" + i, "bench", null);
        users.add(user);
      }

      WorkerFactory factory = WorkerFactory.newInstance(client);
      Worker worker = factory.newWorker(QUEUE);
      worker.registerWorkflowImplementationTypes(AdmittedWorkflowImpl.class);
      worker.registerActivitiesImplementations((AdmissionActivities) request ->
          placement.allocate(new PlacementService.Request(request.sessionId(), request.userId(), request.offeringId()))
              .placement().nodeId());
      factory.start();

      BiConsumer<String, Admit> todaysPath = (workflowId, request) -> {
        placement.allocate(new PlacementService.Request(request.sessionId(), request.userId(), request.offeringId()));
        WorkflowClient.start(stub(client, workflowId)::run);
      };
      BiConsumer<String, Admit> updateWithStart = (workflowId, request) -> {
        AdmittedWorkflow workflow = stub(client, workflowId);
        WorkflowClient.executeUpdateWithStart(workflow::admit, request,
            UpdateOptions.<String>newBuilder().setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
            new WithStartWorkflowOperation<>(workflow::run));
      };

      System.out.printf("%nadmission path benchmark: %d clients x %d creates per path and round, the same admission"
          + " transaction (policy, credits, candidates, allocation) on 128 A100 x 10 slices%n", clients, perClient);
      measure("warm-up (today's path)", todaysPath, clients, Math.max(2, perClient / 4), users, inventory, placement, slice, model);
      for (int round = 1; round <= 2; round++) {
        measure("round " + round + " today's path (transaction, then eager start)", todaysPath, clients, perClient, users,
            inventory, placement, slice, model);
        measure("round " + round + " Update-With-Start (placement in a local activity)", updateWithStart, clients, perClient,
            users, inventory, placement, slice, model);
      }
      factory.shutdownNow();
    }
  }

  private static AdmittedWorkflow stub(WorkflowClient client, String workflowId) {
    return client.newWorkflowStub(AdmittedWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId).setTaskQueue(QUEUE)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setDisableEagerExecution(false)
        .build());
  }

  private static void measure(String label, BiConsumer<String, Admit> path, int clients, int perClient, List<String> users,
      InventoryFixture inventory, PlacementService placement, String offering, String model) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (String user : users) {
      done.add(pool.submit(() -> {
        for (int r = 0; r < perClient; r++) {
          String session = inventory.session(user, model, "fractional");
          long t0 = System.nanoTime();
          path.accept("bench-admission-" + session, new Admit(session, user, offering));
          latencies.add(System.nanoTime() - t0);
          placement.release(session);
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    System.out.printf("  %-62s p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms  (%d creates in %.1f s)%n", label,
        BenchSupport.percentileMillis(latencies, 50), BenchSupport.percentileMillis(latencies, 99),
        BenchSupport.maxMillis(latencies), latencies.size(), seconds);
  }
}
