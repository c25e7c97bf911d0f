package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the deploy targets install, on a real apiserver with KWOK GPU nodes and the claim provisioner's stand-in
 * ({@link KubeCluster}): the chart {@code charts/gshare} with each values file passes the apiserver's strict field
 * validation (a server-side dry run), then {@code helm install --wait --wait-for-jobs} runs until every Deployment,
 * StatefulSet, claim and Job is ready (KWOK runs the pods; their programs do not run), the post-install registration
 * Job included. The operators' kinds (CloudNativePG's Cluster, external-secrets' ExternalSecret) are accepted with
 * their CRDs installed from {@code .tools/crds}. The monitoring stack ({@code make deploy-monitoring}) is applied
 * with strict validation, rolls out, and a second apply changes nothing.
 */
class DeployOnKubernetesIT {

  private static KubeCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = KubeCluster.start(SimSeed.defaultSeed(), KubeCluster.Options.defaults().withName("deploy-it"));
    Path crds = tools().dir().resolve("crds");
    try (var files = Files.list(crds)) {
      for (Path crd : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        run(repo(), "kubectl", tools().kubectl(), "apply", "--server-side", "-f", crd.toString());
      }
    }
    run(repo(), "kubectl", tools().kubectl(), "wait", "--for=condition=Established", "--timeout=60s",
        "crd/clusters.postgresql.cnpg.io", "crd/externalsecrets.external-secrets.io",
        "crd/grpcroutes.gateway.networking.k8s.io");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static KubeTools tools() {
    return cluster.kubernetes().tools();
  }

  private static Path repo() {
    return tools().dir().getParent();
  }

  @ParameterizedTest(name = "values: {0}")
  @ValueSource(strings = {"(defaults, CloudNativePG)", "deploy/values/incluster.yaml", "deploy/values/dockerhub.yaml"})
  void theChartPassesStrictValidationAndInstallsUntilEveryWorkloadIsReady(String values) throws Exception {
    // The all-in-one values file as the operator guide installs it: release gshare in gshare-system, so the guide's
    // own helm upgrade runs below as written.
    boolean guide = values.equals("deploy/values/incluster.yaml");
    String release = guide ? "gshare" : "gshare-" + Math.abs(values.hashCode() % 1000);
    String namespace = guide ? "gshare-system" : release;
    List<String> chart = new ArrayList<>(List.of(release, repo().resolve("charts/gshare").toString(), "-n", namespace));
    if (values.startsWith("(")) {
      // With the internal plane open: the Temporal gateway's gRPC Ingress and its GRPCRoute are validated and applied.
      chart.addAll(List.of("--set", "database.incluster.cloudnativepg=true", "--set", "ingress.internalPlane.enabled=true",
          "--set", "temporalGateway.grpcRoute.enabled=true",
          "--set", "temporalGateway.grpcRoute.parentRefs[0].name=gshare",
          "--set", "temporalGateway.grpcRoute.parentRefs[0].namespace=envoy-gateway-system"));
    } else {
      chart.addAll(List.of("-f", repo().resolve(values).toString()));
    }
    List<String> template = new ArrayList<>(List.of("template"));
    template.addAll(chart);
    String rendered = run(repo(), "helm", tools().helm(), template.toArray(String[]::new));
    Path manifest = Files.createTempFile("chart-", ".yaml");
    Files.writeString(manifest, rendered);
    run(repo(), "kubectl", tools().kubectl(), "create", "namespace", namespace);
    String dryRun = run(repo(), "kubectl", tools().kubectl(), "apply", "--server-side", "--dry-run=server",
        "--validate=strict", "-n", namespace, "-f", manifest.toString());
    assertThat(dryRun).contains("deployment.apps/gshare-api serverside-applied (server dry run)");
    if (values.startsWith("(")) {
      assertThat(dryRun).contains("ingress.networking.k8s.io/gshare-temporal-gateway serverside-applied",
          "grpcroute.gateway.networking.k8s.io/gshare-temporal-gateway serverside-applied");
    }

    List<String> install = new ArrayList<>(List.of("install", "--wait", "--wait-for-jobs", "--timeout", "4m"));
    install.addAll(chart);
    assertThat(run(repo(), "helm", tools().helm(), install.toArray(String[]::new))).contains("STATUS: deployed");
    // Ready as helm left them; on a busy machine a KWOK node's heartbeat can lapse for a moment and the node
    // controller marks its pods unready until the next one, so readiness is awaited rather than read once.
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      String pods = run(repo(), "kubectl", tools().kubectl(), "-n", namespace, "get", "pods", "-o", "wide");
      try (KubernetesClient client = cluster.newClient()) {
        var deployments = client.apps().deployments().inNamespace(namespace).list().getItems();
        assertThat(deployments).extracting(d -> d.getMetadata().getName()).contains("gshare-api");
        assertThat(deployments).allSatisfy(d -> assertThat(d.getStatus().getReadyReplicas())
            .as("%s ready replicas; %s", d.getMetadata().getName(), pods).isEqualTo(d.getSpec().getReplicas()));
        assertThat(client.apps().statefulSets().inNamespace(namespace).list().getItems()).allSatisfy(s ->
            assertThat(s.getStatus().getReadyReplicas()).as("%s ready replicas; %s", s.getMetadata().getName(), pods)
                .isEqualTo(s.getSpec().getReplicas()));
        assertThat(client.persistentVolumeClaims().inNamespace(namespace).list().getItems())
            .allSatisfy(c -> assertThat(c.getStatus().getPhase()).as(c.getMetadata().getName()).isEqualTo("Bound"));
      }
    });
    if (guide) {
      upgradesAsTheGuideSaysAndUninstallsLeavingOnlyWhatItKeeps();
    } else {
      run(repo(), "helm", tools().helm(), "uninstall", release, "-n", namespace, "--wait");
    }
    Files.delete(manifest);
  }

  /**
   * After the all-in-one install: the operator guide's command that opens the internal plane, exactly as written,
   * yields the internal Ingress and the Temporal gateway's Ingress limited to its source range; a second upgrade to
   * two replicas of each kind rolls out; the key Secret the first install made keeps its values through both; and
   * uninstall leaves only what charts/gshare/README.md says it keeps.
   */
  private void upgradesAsTheGuideSaysAndUninstallsLeavingOnlyWhatItKeeps() throws Exception {
    String ns = "gshare-system";
    Map<String, String> keys;
    try (KubernetesClient client = cluster.newClient()) {
      keys = client.secrets().inNamespace(ns).withName("gshare-keys").get().getData();
      assertThat(keys).containsOnlyKeys("kubeconfig.key", "temporal-gateway-task-token.key");
      assertThat(client.network().v1().ingresses().inNamespace(ns).withName("gshare-internal").get()).isNull();
      assertThat(client.network().v1().ingresses().inNamespace(ns).withName("gshare-internal-closed").get()).isNotNull();
    }
    // The guide's command, word for word (its quotes are the shell's).
    String upgraded = run(repo(), "helm", tools().helm(), "upgrade", "gshare", "charts/gshare", "-n", "gshare-system",
        "--reuse-values", "--set", "ingress.internalPlane.enabled=true", "--set",
        "ingress.internalPlane.sourceRange=10.0.0.0/8");
    assertThat(upgraded).contains("STATUS: deployed", "REVISION: 2");
    try (KubernetesClient client = cluster.newClient()) {
      var ingresses = client.network().v1().ingresses().inNamespace(ns);
      for (String name : List.of("gshare-internal", "gshare-temporal-gateway")) {
        var ingress = ingresses.withName(name).get();
        assertThat(ingress).as(name).isNotNull();
        assertThat(ingress.getMetadata().getAnnotations())
            .containsEntry("nginx.ingress.kubernetes.io/whitelist-source-range", "10.0.0.0/8");
      }
      assertThat(ingresses.withName("gshare-internal").get().getSpec().getRules().get(0).getHttp().getPaths())
          .extracting(path -> path.getPath()).contains("/internal", "/.well-known");
      assertThat(ingresses.withName("gshare-temporal-gateway").get().getMetadata().getAnnotations())
          .containsEntry("nginx.ingress.kubernetes.io/backend-protocol", "GRPC");
      assertThat(ingresses.withName("gshare-internal-closed").get()).isNull();
      assertThat(client.secrets().inNamespace(ns).withName("gshare-keys").get().getData()).isEqualTo(keys);
    }

    // Changed values: two api replicas and a separate control worker with two, rolled out with --wait.
    String scaled = run(repo(), "helm", tools().helm(), "upgrade", "gshare", "charts/gshare", "-n", ns, "--reuse-values",
        "--set", "api.replicas=2", "--set", "controlWorker.separate=true", "--set", "controlWorker.replicas=2",
        "--wait", "--timeout", "4m");
    assertThat(scaled).contains("STATUS: deployed", "REVISION: 3");
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      try (KubernetesClient client = cluster.newClient()) {
        for (String name : List.of("gshare-api", "gshare-control-worker")) {
          var deployment = client.apps().deployments().inNamespace(ns).withName(name).get();
          assertThat(deployment.getStatus().getReadyReplicas()).as(name).isEqualTo(2);
          assertThat(client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name).get()).as(name)
              .isNotNull();
        }
        assertThat(client.network().v1().ingresses().inNamespace(ns).withName("gshare-api").get().getMetadata()
            .getAnnotations()).containsEntry("nginx.ingress.kubernetes.io/affinity", "cookie");
        assertThat(client.secrets().inNamespace(ns).withName("gshare-keys").get().getData()).isEqualTo(keys);
      }
    });

    run(repo(), "helm", tools().helm(), "uninstall", "gshare", "-n", ns, "--wait");
    try (KubernetesClient client = cluster.newClient()) {
      assertThat(client.apps().deployments().inNamespace(ns).list().getItems()).isEmpty();
      assertThat(client.apps().statefulSets().inNamespace(ns).list().getItems()).isEmpty();
      assertThat(client.services().inNamespace(ns).list().getItems()).isEmpty();
      assertThat(client.network().v1().ingresses().inNamespace(ns).list().getItems()).isEmpty();
      assertThat(client.batch().v1().jobs().inNamespace(ns).list().getItems()).isEmpty();
      // What the chart README's "Uninstall" section says stays, and nothing else of the chart's.
      assertThat(client.secrets().inNamespace(ns).list().getItems()).extracting(secret -> secret.getMetadata().getName())
          .containsExactlyInAnyOrder("gshare-keys", "gshare-db-credentials", "gshare-register-token");
      assertThat(client.secrets().inNamespace(ns).withName("gshare-keys").get().getData()).isEqualTo(keys);
      assertThat(client.persistentVolumeClaims().inNamespace(ns).list().getItems())
          .extracting(claim -> claim.getMetadata().getName()).containsExactly("data-gshare-db-0");
      assertThat(client.serviceAccounts().inNamespace(ns).list().getItems())
          .extracting(account -> account.getMetadata().getName()).contains("gshare-register")
          .doesNotContain("gshare-api");
    }
  }

  @Test
  void theMonitoringStackAppliesWithStrictValidationRollsOutAndAppliesAgainUnchanged() throws Exception {
    String ns = "monitoring";
    // What make deploy-monitoring runs (hack/deploy.sh monitoring), from the repository root, validated by the
    // apiserver's own OpenAPI schema.
    String[] apply = {"apply", "--validate=strict", "-f", "deploy/monitoring/monitoring-stack.yaml"};
    String applied = run(repo(), "kubectl", tools().kubectl(), apply);
    assertThat(applied).contains("namespace/monitoring created", "configmap/dcgm-exporter-metrics created",
        "daemonset.apps/dcgm-exporter created", "daemonset.apps/node-exporter created",
        "serviceaccount/kube-state-metrics created",
        "clusterrole.rbac.authorization.k8s.io/gshare-kube-state-metrics created",
        "clusterrolebinding.rbac.authorization.k8s.io/gshare-kube-state-metrics created",
        "deployment.apps/kube-state-metrics created", "serviceaccount/prometheus created",
        "clusterrole.rbac.authorization.k8s.io/gshare-prometheus created",
        "clusterrolebinding.rbac.authorization.k8s.io/gshare-prometheus created",
        "configmap/prometheus-config created", "persistentvolumeclaim/prometheus-data created",
        "deployment.apps/prometheus created", "networkpolicy.networking.k8s.io/prometheus created",
        "service/prometheus created");
    // The claim names no class: the cluster's default (gshare-data in the seed) provisions it, and Prometheus starts.
    run(repo(), "kubectl", tools().kubectl(), "-n", ns, "rollout", "status", "--timeout=120s", "deployment/prometheus");
    run(repo(), "kubectl", tools().kubectl(), "-n", ns, "rollout", "status", "--timeout=120s",
        "deployment/kube-state-metrics");
    run(repo(), "kubectl", tools().kubectl(), "-n", ns, "rollout", "status", "--timeout=120s", "daemonset/node-exporter");
    try (KubernetesClient client = cluster.newClient()) {
      PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(ns).withName("prometheus-data").get();
      assertThat(claim.getSpec().getStorageClassName()).isEqualTo("gshare-data");
      assertThat(claim.getStatus().getPhase()).isEqualTo("Bound");
      // dcgm-exporter runs on the GPU nodes only (gpu=on), every one of them.
      long gpuNodes = client.nodes().withLabel("gpu", "on").list().getItems().size();
      assertThat(gpuNodes).isPositive();
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        var dcgm = client.apps().daemonSets().inNamespace(ns).withName("dcgm-exporter").get().getStatus();
        assertThat(dcgm.getDesiredNumberScheduled()).isEqualTo((int) gpuNodes);
        assertThat(dcgm.getNumberReady()).isEqualTo((int) gpuNodes);
      });
    }

    // Applying again (what a second make deploy-monitoring does) changes nothing and fails on nothing.
    String again = run(repo(), "kubectl", tools().kubectl(), apply);
    assertThat(again).contains("deployment.apps/prometheus unchanged", "persistentvolumeclaim/prometheus-data unchanged")
        .doesNotContain("created");
  }

  private static String run(Path workingDir, String what, Path binary, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(binary.toString(), "--kubeconfig",
        cluster.kubernetes().kubeconfig().toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).directory(workingDir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(what + " " + String.join(" ", arguments) + " ran past 5 minutes");
    }
    assertThat(process.exitValue()).as("%s %s:\n%s", what, String.join(" ", arguments), output).isZero();
    return output;
  }
}
