package io.gshare.activities;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.GpuNodes;
import io.gshare.sim.kube.KubeCluster;
import java.time.Duration;
import java.util.Arrays;

/**
 * One real Kubernetes ({@link KubeCluster} with the dev seed) for this module's unit tests: started on first use
 * (about 14 s and 560 MB, so one per test JVM, not one per test) and stopped when the JVM exits. Tests share it, so
 * each adds its own nodes ({@link #addNodes}) and names its objects so that no other test's objects meet them.
 */
public final class SharedKubeCluster {

  /** Part of the GPUs' uuids ({@code SimObjects.gpuUuid(NAME, node, index)}). */
  public static final String NAME = "activities-test";

  private static KubeCluster cluster;

  private SharedKubeCluster() {}

  public static synchronized KubeCluster get() {
    if (cluster == null) {
      KubeCluster started = KubeCluster.start(SimSeed.defaultSeed(), KubeCluster.Options.defaults().withName(NAME));
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "activities-test-kube-stop"));
      cluster = started;
    }
    return cluster;
  }

  /** Adds the nodes (once per JVM: a second call finds them) and waits until KWOK has made them Ready. */
  public static void addNodes(SimSeed.NodeSpec... nodes) {
    KubeCluster kube = get();
    Arrays.stream(nodes).forEach(kube::addNode);
    try (KubernetesClient client = kube.newClient()) {
      new GpuNodes(client, NAME).awaitReady(Arrays.stream(nodes).map(SimSeed.NodeSpec::name).toList(),
          Duration.ofSeconds(60));
    }
  }

  /** The namespace, created unless it exists (server-side apply). */
  public static void ensureNamespace(KubernetesClient client, String name) {
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .fieldManager("activities-test").serverSideApply();
  }
}
