package io.gshare.clusterworker;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gshare.activities.cluster.ClusterActivitiesImpl;
import io.gshare.activities.cluster.ImagePullClusterActivitiesImpl;
import io.gshare.activities.cluster.MetricQueryActivitiesImpl;
import io.gshare.activities.cluster.NodeClusterActivitiesImpl;
import io.gshare.activities.cluster.SessionClusterActivitiesImpl;
import io.gshare.activities.cluster.VolumeClusterActivitiesImpl;
import io.gshare.activities.system.WorkerPingActivitiesImpl;
import io.gshare.workflows.cluster.WorkerEnv;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.system.WorkerIdentity;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point of the cluster-worker: one process per cluster, polling only its cluster's queue. */
public final class ClusterWorkerMain {

  private static final Logger log = LoggerFactory.getLogger(ClusterWorkerMain.class);

  private ClusterWorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length > 0 && args[0].equals("agent")) {
      agent(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(ClusterWorkerConfig.USAGE);
      return;
    }
    ClusterWorkerConfig config;
    try {
      config = ClusterWorkerConfig.fromEnvironment(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("gshare-cluster-worker: " + e.getMessage());
      System.err.println(ClusterWorkerConfig.USAGE);
      System.exit(2);
      return;
    }
    Running running = start(config);
    exitWithParent(System.getProperty(PARENT_PID_PROPERTY));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      running.close();
      stopped.countDown();
    }, "gshare-cluster-worker-shutdown"));
    stopped.await();
  }

  /**
   * {@code gshare-cluster-worker agent}: the per-node usage agent instead of the worker (the same image, so the
   * DaemonSet needs no second one). No Temporal: it only samples its node and posts to the control plane.
   */
  static void agent(String[] args) throws InterruptedException {
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(UsageAgentConfig.USAGE);
      return;
    }
    UsageAgentConfig config;
    try {
      config = UsageAgentConfig.fromEnvironment(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("gshare-cluster-worker agent: " + e.getMessage());
      System.err.println(UsageAgentConfig.USAGE);
      System.exit(2);
      return;
    }
    KubernetesClient kubernetes = new KubernetesClientBuilder().build();
    AutoCloseable agent = UsageAgent.start(config, kubernetes);
    exitWithParent(System.getProperty(PARENT_PID_PROPERTY));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        agent.close();
      } catch (Exception e) {
        log.warn("stopping the usage agent: {}", e.toString());
      }
      kubernetes.close();
      log.info("usage agent stopped");
      stopped.countDown();
    }, "gshare-usage-agent-shutdown"));
    stopped.await();
  }

  /**
   * Set by the dev runtime's local-process deployer: a worker whose api is gone (killed, or a test JVM
   * that ended) exits too, instead of living on as an orphan polling a dead Temporal. A Deployment's pod
   * never has it.
   */
  public static final String PARENT_PID_PROPERTY = "gshare.cluster-worker.parent-pid";

  static void exitWithParent(String parentPid) {
    if (parentPid == null || parentPid.isBlank()) {
      return;
    }
    ProcessHandle.of(Long.parseLong(parentPid.trim())).ifPresentOrElse(
        parent -> parent.onExit().thenRun(() -> System.exit(0)),
        () -> System.exit(0));
  }

  /** A started worker and what it holds open. */
  public record Running(WorkerFactory factory, WorkflowServiceStubs service, KubernetesClient kubernetes,
      List<ReportLoop> reports) implements AutoCloseable {
    @Override
    public void close() {
      reports.forEach(ReportLoop::close);
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
      service.shutdown();
      kubernetes.close();
      log.info("cluster-worker stopped");
    }
  }

  public static Running start(ClusterWorkerConfig config) {
    KubernetesClient kubernetes = new KubernetesClientBuilder().build();
    WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
        config.temporalAuth().applyTo(WorkflowServiceStubsOptions.newBuilder().setTarget(config.temporalAddress())).build());
    WorkflowClient client = WorkflowClient.newInstance(
        service, WorkflowClientOptions.newBuilder().setNamespace(config.temporalNamespace()).build());
    String identity = ManagementFactory.getRuntimeMXBean().getName() + "/" + config.clusterId();
    WorkerFactory factory = WorkerFactory.newInstance(client);
    String queue = TaskQueues.cluster(config.clusterId());
    Worker worker = factory.newWorker(queue, WorkerOptions.newBuilder().setIdentity(identity).build());
    worker.registerActivitiesImplementations(
        new ClusterActivitiesImpl(kubernetes),
        new SessionClusterActivitiesImpl(kubernetes),
        new NodeClusterActivitiesImpl(kubernetes),
        new VolumeClusterActivitiesImpl(kubernetes),
        new ImagePullClusterActivitiesImpl(kubernetes),
        new MetricQueryActivitiesImpl(),
        new WorkerPingActivitiesImpl(new WorkerIdentity(identity, "cluster-worker", version())));
    factory.start();
    log.info("cluster-worker {} polls {} on Temporal {} (namespace {}); Kubernetes API {}",
        identity, queue, config.temporalAddress(), config.temporalNamespace(),
        kubernetes.getConfiguration().getMasterUrl());
    List<ReportLoop> reports = new ArrayList<>();
    if (config.controlPlaneUrl() == null) {
      log.warn("{} is not set: no inventory is reported, the control plane will see no nodes",
          WorkerEnv.CONTROL_PLANE_URL.variable());
    } else {
      ControlPlaneClient controlPlane = new ControlPlaneClient(config.controlPlaneUrl(), new TokenFile(config.tokenFile()));
      InventoryReporter inventory = new InventoryReporter(config.clusterId(), kubernetes, controlPlane);
      SessionStatusReporter sessions = new SessionStatusReporter(kubernetes, controlPlane);
      reports.add(new ReportLoop("inventory", inventory::tick).start(config.inventoryInterval()));
      reports.add(new ReportLoop("session status", sessions::tick).start(config.inventoryInterval()));
      reports.add(new ReportLoop("usage", new UsageReporter(kubernetes, controlPlane, Clock.systemUTC())::tick)
          .start(config.inventoryInterval()));
      reports.add(new ReportLoop("volume sync", new VolumeSyncReporter(kubernetes, controlPlane)::tick)
          .start(config.volumeSyncInterval()));
      log.info("reporting the inventory and session status to {} every {}s with the token in {}", config.controlPlaneUrl(),
          config.inventoryInterval().toSeconds(), config.tokenFile());
    }
    return new Running(factory, service, kubernetes, List.copyOf(reports));
  }

  static String version() {
    String v = ClusterWorkerMain.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
