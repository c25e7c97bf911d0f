package io.gshare.api.support;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.ClusterActivitiesImpl;
import io.gshare.activities.system.WorkerPingActivitiesImpl;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.system.WorkerIdentity;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.util.concurrent.TimeUnit;

/**
 * A cluster-worker's wiring (the same activities on the same queue) inside the test JVM, against a
 * real Kubernetes with KWOK nodes (simulated GPUs). The dev-runtime integration test runs the real cluster-worker process.
 */
public final class InProcessClusterWorker implements AutoCloseable {

  private final WorkflowServiceStubs stubs;
  private final WorkerFactory factory;
  private final KubernetesClient kubernetes;

  public InProcessClusterWorker(String temporalAddress, String clusterId, KubeCluster cluster) {
    stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(temporalAddress).build());
    factory = WorkerFactory.newInstance(WorkflowClient.newInstance(stubs));
    kubernetes = cluster.newClient();
    String identity = "test-worker/" + clusterId;
    factory.newWorker(TaskQueues.cluster(clusterId), WorkerOptions.newBuilder().setIdentity(identity).build())
        .registerActivitiesImplementations(
        new ClusterActivitiesImpl(kubernetes),
        new WorkerPingActivitiesImpl(new WorkerIdentity(identity, "cluster-worker", "test")));
    factory.start();
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(5, TimeUnit.SECONDS);
    stubs.shutdown();
    kubernetes.close();
  }
}
