package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gshare.sim.SimSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real Kubernetes the tests run ({@link LocalKubernetes}), with the dev runtime's seed as KWOK GPU nodes
 * ({@link GpuNodes}): a real server version, the GPU capacity as {@code kubectl get nodes} shows it, a pod asking
 * for eight GPUs bound by the real scheduler and run by KWOK, a Deployment rolled out, the apiserver's own 422,
 * and kubectl's cordon, label and drain against a PodDisruptionBudget.
 */
class LocalKubernetesIT {

  private static LocalKubernetes kube;
  private static KubernetesClient client;

  @BeforeAll
  static void start() {
    kube = LocalKubernetes.shared();
    client = kube.newClient();
    new GpuNodes(client, "kube-it").seed(SimSeed.defaultSeed(), Duration.ofSeconds(60));
  }

  @AfterAll
  static void close() {
    client.close();
  }

  @Test
  void kubectlTalksToARealApiserver() throws Exception {
    String version = kubectl("version", "-o", "json");
    assertThat(version).contains("\"serverVersion\"").contains("\"gitVersion\": \"v1.37.2\"");
    assertThat(kube.serverVersion()).isEqualTo("v1.37.2");
    System.out.printf("local Kubernetes ready in %d ms%n", kube.startupTime().toMillis());
  }

  @Test
  void getNodesShowsTheGpuCapacityHamisDevicePluginWrites() throws Exception {
    String nodes = kubectl("get", "nodes", "-o",
        "custom-columns=NAME:.metadata.name,GPU:.status.capacity.nvidia\\.com/gpu,MODE:.metadata.labels.gshare\\.io/gpu-mode");
    assertThat(nodes.lines().map(l -> List.of(l.trim().split("\\s+"))))
        .contains(List.of("sim-h100-0", "8", "exclusive"), List.of("sim-a100-0", "40", "fractional"),
            List.of("sim-cpu-0", "<none>", "cpu"));
    assertThat(client.nodes().withName("sim-h100-0").get().getMetadata().getAnnotations())
        .containsKey("hami.io/node-nvidia-register");
  }

  @Test
  void theRealSchedulerBindsAPodAskingForEightGpusAndKwokRunsIt() {
    Pod pod = new PodBuilder().withNewMetadata().withName("eight-gpus").withNamespace("default").endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("registry.example.com/cuda:12")
        // Only the H100 node has 8 x 81,559 MiB: the A100 node's 40 slices have 160 GiB in all.
        .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8"))
        .addToLimits("nvidia.com/gpumem", new Quantity(String.valueOf(8 * 81_559))).endResources().endContainer()
        .endSpec().build();
    client.resource(pod).create();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      Pod running = client.pods().inNamespace("default").withName("eight-gpus").get();
      assertThat(running.getSpec().getNodeName()).isEqualTo("sim-h100-0");
      assertThat(running.getStatus().getPhase()).isEqualTo("Running");
    });
    client.resource(pod).delete();
  }

  @Test
  void aDeploymentRollsOut() {
    client.resource(deployment("rolls-out", 2)).create();
    Deployment rolled = client.apps().deployments().inNamespace("default").withName("rolls-out")
        .waitUntilCondition(d -> d.getStatus() != null && Integer.valueOf(2).equals(d.getStatus().getAvailableReplicas()),
            60, TimeUnit.SECONDS);
    assertThat(rolled.getStatus().getReadyReplicas()).isEqualTo(2);
    client.resource(rolled).delete();
  }

  @Test
  void theApiserverRefusesAnInvalidObjectWithItsOwn422() {
    Pod invalid = new PodBuilder().withNewMetadata().withName("Not_A_Name").withNamespace("default").endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("x").endContainer().endSpec().build();
    assertThatThrownBy(() -> client.resource(invalid).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
          assertThat(e.getMessage()).contains("metadata.name");
        });
  }

  @Test
  void kubectlCordonsLabelsAndDrainsANodeAgainstADisruptionBudget() throws Exception {
    SimSeed.NodeSpec spare = SimSeed.defaultSeed().nodes().stream()
        .filter(n -> n.name().equals("sim-cpu-0")).findFirst().orElseThrow();
    String node = "drain-me";
    new GpuNodes(client, "kube-it").add(new SimSeed.NodeSpec(node, spare.gpuMode(), null, Map.of(), null),
        "v1.37.2");
    new GpuNodes(client, "kube-it").awaitReady(List.of(node), Duration.ofSeconds(30));
    Deployment guarded = deployment("guarded", 1);
    guarded.getSpec().getTemplate().getSpec().setNodeSelector(Map.of("kubernetes.io/hostname", node));
    client.resource(guarded).create();
    client.resource(new PodDisruptionBudgetBuilder().withNewMetadata().withName("guarded").withNamespace("default")
        .endMetadata().withNewSpec().withMinAvailable(new IntOrString(1)).withNewSelector()
        .addToMatchLabels("app", "guarded").endSelector().endSpec().build()).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> client.policy().v1().podDisruptionBudget().inNamespace("default")
        .withName("guarded").get().getStatus().getCurrentHealthy() == 1);

    assertThat(kubectl("label", "node", node, "gshare.io/pool=team-a")).contains("labeled");
    assertThat(client.nodes().withName(node).get().getMetadata().getLabels()).containsEntry("gshare.io/pool", "team-a");
    assertThat(kubectl("cordon", node)).contains("cordoned");
    assertThat(client.nodes().withName(node).get().getSpec().getUnschedulable()).isTrue();
    // The budget's status is the disruption controller's: no disruption allowed, so the eviction is refused.
    assertThat(client.policy().v1().podDisruptionBudget().inNamespace("default").withName("guarded").get()
        .getStatus().getDisruptionsAllowed()).isZero();
    KubectlResult blocked = kubectlResult("drain", node, "--ignore-daemonsets", "--timeout=5s");
    assertThat(blocked.exitCode()).isNotZero();
    assertThat(blocked.output()).contains("Cannot evict pod as it would violate the pod's disruption budget");

    client.policy().v1().podDisruptionBudget().inNamespace("default").withName("guarded").delete();
    assertThat(kubectl("drain", node, "--ignore-daemonsets", "--timeout=30s")).contains("drained");
    assertThat(kubectl("uncordon", node)).contains("uncordoned");
    client.apps().deployments().inNamespace("default").withName("guarded").delete();
    client.nodes().withName(node).delete();
  }

  private static Deployment deployment(String name, int replicas) {
    return new DeploymentBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .withNewSpec().withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec()
        .addNewContainer().withName("main").withImage("registry.example.com/app:1").endContainer()
        .endSpec().endTemplate().endSpec().build();
  }

  record KubectlResult(int exitCode, String output) {}

  static String kubectl(String... arguments) throws Exception {
    KubectlResult result = kubectlResult(arguments);
    assertThat(result.exitCode()).as("kubectl %s:\n%s", String.join(" ", arguments), result.output()).isZero();
    return result.output();
  }

  static KubectlResult kubectlResult(String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(kube.tools().kubectl().toString(), "--kubeconfig",
        kube.kubeconfig().toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("kubectl " + String.join(" ", arguments) + " ran past 2 minutes");
    }
    return new KubectlResult(process.exitValue(), output);
  }

  static Path kubeconfig() {
    return kube.kubeconfig();
  }
}
