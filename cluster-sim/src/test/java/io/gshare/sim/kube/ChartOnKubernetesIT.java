package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.sim.SimulatedCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chart {@code charts/gshare} installed by the real helm into the real apiserver, with each values file: the
 * rendered objects first pass the apiserver's strict field validation (a server-side dry run), then
 * {@code helm install} deploys them. Not yet: {@code --wait} until every workload is ready, which timed out for the
 * default and in-cluster values (their volume claims have no provisioner here yet; the dockerhub values passed it).
 * The operators' kinds (CloudNativePG's Cluster, external-secrets' ExternalSecret) are accepted with their
 * CRDs installed from {@code .tools/crds}.
 */
class ChartOnKubernetesIT {

  private static LocalKubernetes kube;

  @BeforeAll
  static void start() throws Exception {
    kube = LocalKubernetes.shared();
    try (KubernetesClient client = kube.newClient()) {
      new GpuNodes(client, "chart-it").seed(SimulatedCluster.defaultSeed(), Duration.ofSeconds(60));
    }
    Path crds = kube.tools().dir().resolve("crds");
    try (var files = Files.list(crds)) {
      for (Path crd : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        run("kubectl", kube.tools().kubectl(), "apply", "--server-side", "-f", crd.toString());
      }
    }
    run("kubectl", kube.tools().kubectl(), "wait", "--for=condition=Established", "--timeout=60s",
        "crd/clusters.postgresql.cnpg.io", "crd/externalsecrets.external-secrets.io");
  }

  @ParameterizedTest(name = "values: {0}")
  @ValueSource(strings = {"(defaults, CloudNativePG)", "deploy/values/incluster.yaml", "deploy/values/dockerhub.yaml"})
  void theChartPassesStrictValidationAndInstalls(String values) throws Exception {
    Path repo = kube.tools().dir().getParent();
    String release = "gshare-" + Math.abs(values.hashCode() % 1000);
    String namespace = release;
    List<String> chart = new ArrayList<>(List.of(release, repo.resolve("charts/gshare").toString(), "-n", namespace));
    if (values.startsWith("(")) {
      chart.addAll(List.of("--set", "database.incluster.cloudnativepg=true"));
    } else {
      chart.addAll(List.of("-f", repo.resolve(values).toString()));
    }
    List<String> template = new ArrayList<>(List.of("template"));
    template.addAll(chart);
    String rendered = run("helm", kube.tools().helm(), template.toArray(String[]::new));
    Path manifest = Files.createTempFile("chart-", ".yaml");
    Files.writeString(manifest, rendered);
    run("kubectl", kube.tools().kubectl(), "create", "namespace", namespace);
    String dryRun = run("kubectl", kube.tools().kubectl(), "apply", "--server-side", "--dry-run=server",
        "--validate=strict", "-n", namespace, "-f", manifest.toString());
    assertThat(dryRun).contains("deployment.apps/gshare-api serverside-applied (server dry run)");

    List<String> install = new ArrayList<>(List.of("install"));
    install.addAll(chart);
    assertThat(run("helm", kube.tools().helm(), install.toArray(String[]::new))).contains("STATUS: deployed");
    try (KubernetesClient client = kube.newClient()) {
      var deployments = client.apps().deployments().inNamespace(namespace).list().getItems();
      assertThat(deployments).extracting(d -> d.getMetadata().getName()).contains("gshare-api");
    }
    run("helm", kube.tools().helm(), "uninstall", release, "-n", namespace, "--wait");
    Files.delete(manifest);
  }

  private static String run(String what, Path binary, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(binary.toString(), "--kubeconfig", kube.kubeconfig().toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(4, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(what + " " + String.join(" ", arguments) + " ran past 4 minutes");
    }
    assertThat(process.exitValue()).as("%s %s:\n%s", what, String.join(" ", arguments), output).isZero();
    return output;
  }
}
