package io.gshare.sim.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Puts a seed's cluster into a real apiserver: its GPU nodes as KWOK nodes carrying what HAMi's device plugin
 * writes on a real GPU node ({@code nvidia.com/gpu|gpumem|gpucores} capacity, {@code hami.io/node-nvidia-register},
 * the handshake, the labels {@code gpu=on} and {@code gshare.io/gpu-mode}), and the add-ons and StorageClasses a
 * cluster built by {@code hack/cluster-bootstrap.sh} holds. KWOK then plays their kubelets: they turn Ready and run
 * the pods bound to them. The nodes' objects are {@link SimObjects}' (one description of a seeded node).
 */
public final class GpuNodes {

  private final KubernetesClient client;
  private final String clusterName;
  private final AtomicInteger ordinal = new AtomicInteger();

  /**
   * @param clusterName part of the GPUs' uuids, so two clusters never share a card
   */
  public GpuNodes(KubernetesClient client, String clusterName) {
    this.client = client;
    this.clusterName = clusterName;
  }

  /** The seed's add-ons, StorageClasses and nodes, each created unless it exists; then waits for the nodes. */
  public void seed(SimSeed seed, Duration timeout) {
    for (HasMetadata object : SimObjects.addons(seed.addons())) {
      createIfAbsent(object);
    }
    for (HasMetadata object : SimObjects.storage(seed.storageClasses())) {
      createIfAbsent(object);
    }
    seed.nodes().forEach(n -> add(n, seed.kubernetesVersion()));
    awaitReady(seed.nodes().stream().map(SimSeed.NodeSpec::name).toList(), timeout);
  }

  /** Adds a node as the bootstrap's join and label steps would; false when it exists. KWOK makes it Ready. */
  public boolean add(SimSeed.NodeSpec spec, String kubeletVersion) {
    Node node = SimObjects.node(clusterName, spec, ordinal.getAndIncrement(), kubeletVersion, Instant.now());
    node.getMetadata().getAnnotations().put(LocalKubernetes.KWOK_NODE_ANNOTATION, LocalKubernetes.KWOK_NODE_VALUE);
    node.getMetadata().setCreationTimestamp(null);
    // KWOK's node-initialize stage writes the conditions, addresses and heartbeat; capacity is kept as given.
    node.getStatus().setConditions(List.of());
    node.getStatus().setAddresses(List.of());
    return createIfAbsent(node);
  }

  /** Waits until every named node is Ready and without the not-ready taint. */
  public void awaitReady(List<String> names, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (String name : names) {
      while (!ready(client.nodes().withName(name).get())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("node " + name + " did not turn Ready within " + timeout.toSeconds()
              + " s (is kwok running?)");
        }
        sleep();
      }
    }
  }

  static boolean ready(Node node) {
    if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    boolean ready = node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    boolean tainted = node.getSpec().getTaints() != null && node.getSpec().getTaints().stream()
        .anyMatch(t -> t.getKey().startsWith("node.kubernetes.io/not-ready"));
    return ready && !tainted;
  }

  private boolean createIfAbsent(HasMetadata object) {
    try {
      client.resource(object).create();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return false;
      }
      throw e;
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
