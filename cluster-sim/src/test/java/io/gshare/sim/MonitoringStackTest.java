package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/monitoring/monitoring-stack.yaml ({@code make deploy-monitoring}): every object validated offline against
 * the Kubernetes schema (fabric8's model; a field the schema does not have is refused, as in
 * {@link RenderedChartTest}), what matters about each checked (30 days of retention on a claim of the
 * default class, Prometheus inside the cluster only, the DCGM fields with the Xid gauge and count, a scrape job per
 * source, pinned images), the prometheus.yml loaded by a real Prometheus ({@code .tools/bin/prometheus}). The whole
 * file applied to a real apiserver with strict validation and rolled out is {@code kube.DeployOnKubernetesIT}'s. Not
 * verified: a real cluster with GPUs, real exporters, Prometheus discovering and scraping them.
 */
class MonitoringStackTest {

  static final String STACK = "deploy/monitoring/monitoring-stack.yaml";
  private static final String NS = "monitoring";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern KIND = Pattern.compile("(?m)^kind: (\\S+)$");

  @TempDir Path dir;

  @Test
  void everyObjectOfTheStackHasOnlyFieldsTheKubernetesSchemaHas() throws IOException {
    List<String> docs = documents(Files.readString(repoRoot().resolve(STACK)));
    assertThat(docs).hasSize(16);
    for (String doc : docs) {
      assertThat(RenderedChartTest.unknownFields(doc)).as("fields the Kubernetes schema does not have in\n%s", doc)
          .isEmpty();
    }
    assertThat(docs).extracting(MonitoringStackTest::kindAndName).containsExactly(
        "Namespace/monitoring", "ConfigMap/dcgm-exporter-metrics", "DaemonSet/dcgm-exporter", "DaemonSet/node-exporter",
        "ServiceAccount/kube-state-metrics", "ClusterRole/gshare-kube-state-metrics",
        "ClusterRoleBinding/gshare-kube-state-metrics", "Deployment/kube-state-metrics", "ServiceAccount/prometheus",
        "ClusterRole/gshare-prometheus", "ClusterRoleBinding/gshare-prometheus", "ConfigMap/prometheus-config",
        "PersistentVolumeClaim/prometheus-data", "Deployment/prometheus", "NetworkPolicy/prometheus",
        "Service/prometheus");
    for (HasMetadata object : objects()) {
      if (!(object instanceof ClusterRole || object instanceof ClusterRoleBinding
          || object instanceof Namespace)) {
        assertThat(object.getMetadata().getNamespace()).as(kindAndName(object)).isEqualTo(NS);
      }
    }
  }

  /** The check above can fail: a copy of the file with one field misspelt, or of a wrong type, does not pass. */
  @Test
  void aBrokenCopyOfTheStackFailsTheSchemaCheck() throws IOException {
    String stack = Files.readString(repoRoot().resolve(STACK));
    String misspelt = stack.replace("      runtimeClassName: nvidia", "      runtimeClasName: nvidia");
    assertThat(misspelt).isNotEqualTo(stack);
    List<String> unknown = new ArrayList<>();
    for (String doc : documents(misspelt)) {
      unknown.addAll(RenderedChartTest.unknownFields(doc));
    }
    assertThat(unknown).containsExactly(".spec.template.spec.runtimeClasName");

    String wrongType = stack.replace("  replicas: 1\n  # One pod", "  replicas: one\n  # One pod");
    assertThat(wrongType).isNotEqualTo(stack);
    String prometheus = documents(wrongType).stream()
        .filter(d -> d.contains("\nkind: Deployment\n") && d.contains("\n  name: prometheus\n")).findFirst().orElseThrow();
    assertThatThrownBy(() -> RenderedChartTest.unknownFields(prometheus)).hasStackTraceContaining("\"one\"");
  }

  @Test
  void prometheusKeepsThirtyDaysOnAClaimOfTheDefaultClassAndIsReachableOnlyInsideTheCluster() throws IOException {
    Deployment prometheus = object(Deployment.class, "prometheus");
    assertThat(prometheus.getSpec().getReplicas()).isEqualTo(1);
    assertThat(prometheus.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    Container server = only(prometheus.getSpec().getTemplate().getSpec());
    assertThat(server.getArgs()).contains("--storage.tsdb.retention.time=30d", "--config.file=/etc/prometheus/prometheus.yml",
        "--storage.tsdb.path=/prometheus");
    assertThat(server.getArgs()).noneMatch(a -> a.startsWith("--web.enable-lifecycle") || a.startsWith("--web.enable-admin-api"));
    assertThat(server.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/prometheus") && m.getName().equals("data"));
    assertThat(prometheus.getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(v -> v.getName().equals("data") && v.getPersistentVolumeClaim() != null
            && v.getPersistentVolumeClaim().getClaimName().equals("prometheus-data"));
    assertThat(prometheus.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("prometheus");

    PersistentVolumeClaim data = object(PersistentVolumeClaim.class, "prometheus-data");
    assertThat(data.getSpec().getStorageClassName()).as("no class: the default StorageClass").isNull();
    assertThat(data.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(data.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("50Gi");
    // The size cap stays under the claim: 40 GiB of TSDB blocks on a 50 GiB volume.
    assertThat(server.getArgs()).contains("--storage.tsdb.retention.size=40GB");

    // Inside the cluster only: one Service, ClusterIP, no NodePort, LoadBalancer, Ingress or host port anywhere.
    List<HasMetadata> objects = objects();
    assertThat(objects).filteredOn(o -> o instanceof Service).extracting(o -> ((Service) o).getSpec().getType())
        .containsExactly("ClusterIP");
    Service service = object(Service.class, "prometheus");
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getPort()).isEqualTo(9090);
      assertThat(p.getNodePort()).isNull();
    });
    assertThat(service.getSpec().getSelector()).containsEntry("app.kubernetes.io/name", "prometheus");
    assertThat(objects).extracting(HasMetadata::getKind).doesNotContain("Ingress", "HTTPRoute", "Gateway");
    String stack = Files.readString(repoRoot().resolve(STACK));
    assertThat(stack).doesNotContainPattern("(?m)^\\s*(type: (NodePort|LoadBalancer)|nodePort:|hostPort:|externalIPs:)");
    assertThat(prometheus.getSpec().getTemplate().getSpec().getHostNetwork()).isNotEqualTo(Boolean.TRUE);
    // Where the CNI enforces it: only gShare's worker (gshare-system) and the monitoring namespace may query it.
    NetworkPolicy policy = object(NetworkPolicy.class, "prometheus");
    assertThat(policy.getSpec().getPodSelector().getMatchLabels()).containsExactly(Map.entry("app.kubernetes.io/name", "prometheus"));
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
      assertThat(rule.getFrom()).extracting(f -> f.getNamespaceSelector().getMatchLabels().get("kubernetes.io/metadata.name"))
          .containsExactly("gshare-system", NS);
      assertThat(rule.getFrom()).allMatch(f -> f.getPodSelector() == null && f.getIpBlock() == null);
      assertThat(rule.getPorts()).singleElement().satisfies(p -> assertThat(p.getPort().getIntVal()).isEqualTo(9090));
    });
  }

  @Test
  void prometheusMayReadWhatItScrapesButNotTheKubeletsOtherApis() throws IOException {
    ClusterRole role = object(ClusterRole.class, "gshare-prometheus");
    for (String resource : List.of("nodes", "services", "endpoints", "pods")) {
      assertThat(grants(role, resource)).as(resource).contains("get", "list", "watch");
    }
    assertThat(grants(role, "nodes/metrics")).as("the kubelets' /metrics and /metrics/cadvisor").containsExactly("get");
    assertThat(grants(role, "nodes/proxy")).as("nodes/proxy get reaches exec on every kubelet").isEmpty();
    assertThat(role.getRules()).anyMatch(r -> r.getNonResourceURLs().contains("/metrics") && r.getVerbs().equals(List.of("get")));
    assertThat(role.getRules()).flatExtracting(PolicyRule::getVerbs).doesNotContain("create", "update", "patch", "delete", "*");

    ClusterRoleBinding binding = object(ClusterRoleBinding.class, "gshare-prometheus");
    assertThat(binding.getRoleRef().getName()).isEqualTo("gshare-prometheus");
    assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
      assertThat(s.getKind()).isEqualTo("ServiceAccount");
      assertThat(s.getName()).isEqualTo("prometheus");
      assertThat(s.getNamespace()).isEqualTo(NS);
    });
    assertThat(object(ServiceAccount.class, "prometheus")).isNotNull();

    ClusterRole ksm = object(ClusterRole.class, "gshare-kube-state-metrics");
    assertThat(grants(ksm, "pods")).containsExactly("list", "watch");
    assertThat(grants(ksm, "secrets")).isEmpty();
    assertThat(ksm.getRules()).flatExtracting(PolicyRule::getVerbs).containsOnly("list", "watch");
    ClusterRoleBinding ksmBinding = object(ClusterRoleBinding.class, "gshare-kube-state-metrics");
    assertThat(ksmBinding.getSubjects()).singleElement().satisfies(s -> assertThat(s.getName()).isEqualTo("kube-state-metrics"));
    Deployment ksmDeployment = object(Deployment.class, "kube-state-metrics");
    assertThat(ksmDeployment.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("kube-state-metrics");
    String resources = only(ksmDeployment.getSpec().getTemplate().getSpec()).getArgs().stream()
        .filter(a -> a.startsWith("--resources=")).findFirst().orElseThrow().substring("--resources=".length());
    assertThat(resources.split(",")).contains("pods", "nodes", "persistentvolumeclaims", "deployments", "daemonsets")
        .doesNotContain("secrets", "configmaps");
  }

  @Test
  void dcgmExporterRunsOnTheGpuNodesWithTheXidGaugeAndCount() throws IOException {
    DaemonSet dcgm = object(DaemonSet.class, "dcgm-exporter");
    PodSpec pod = dcgm.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsExactly(Map.entry("gpu", "on"));
    assertThat(pod.getRuntimeClassName()).isEqualTo("nvidia");
    Container exporter = only(pod);
    assertThat(exporter.getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getContainerPort()).isEqualTo(9400);
      assertThat(p.getName()).isEqualTo("metrics");
    });
    Map<String, String> env = new LinkedHashMap<>();
    exporter.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    assertThat(env).containsEntry("DCGM_EXPORTER_LISTEN", ":9400")
        .containsEntry("DCGM_EXPORTER_COLLECTORS", "/etc/dcgm-exporter/gshare/counters.csv");
    assertThat(exporter.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/etc/dcgm-exporter/gshare"));
    assertThat(pod.getVolumes()).anyMatch(v -> v.getConfigMap() != null
        && v.getConfigMap().getName().equals("dcgm-exporter-metrics"));
    assertNonRoot("dcgm-exporter", pod);

    // The CSV as dcgm-exporter reads it (Go's csv.Reader with Comment '#'): every record three fields, a
    // Prometheus type it knows.
    String csv = object(ConfigMap.class, "dcgm-exporter-metrics").getData().get("counters.csv");
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : csv.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] record = line.split(",", -1);
      assertThat(record).as(line).hasSize(3);
      assertThat(record[1].trim()).as(line).isIn("gauge", "counter", "histogram", "summary", "label");
      fields.put(record[0].trim(), record[1].trim());
    }
    assertThat(fields).containsEntry("DCGM_FI_DEV_GPU_UTIL", "gauge").containsEntry("DCGM_FI_DEV_FB_USED", "gauge")
        .containsEntry("DCGM_FI_DEV_FB_FREE", "gauge").containsEntry("DCGM_FI_DEV_GPU_TEMP", "gauge")
        .containsEntry("DCGM_FI_DEV_POWER_USAGE", "gauge")
        // The last Xid (a code) and the count of each Xid within the window.
        .containsEntry("DCGM_FI_DEV_XID_ERRORS", "gauge").containsKey("DCGM_EXP_XID_ERRORS_COUNT");
    assertThat(fields.keySet()).allMatch(f -> f.startsWith("DCGM_FI_DEV_") || f.startsWith("DCGM_EXP_")
        || f.equals("DCGM_FI_DRIVER_VERSION"));
    assertThat(fields.keySet()).as("profiling fields need root with CAP_SYS_ADMIN").noneMatch(f -> f.startsWith("DCGM_FI_PROF_"));
  }

  @Test
  void nodeExporterRunsOnEveryNodeInTheHostNamespacesAsUpstreamDoes() throws IOException {
    DaemonSet nodeExporter = object(DaemonSet.class, "node-exporter");
    PodSpec pod = nodeExporter.getSpec().getTemplate().getSpec();
    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getHostPID()).isTrue();
    assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
      assertThat(t.getOperator()).isEqualTo("Exists");
      assertThat(t.getKey()).isNull();
    });
    Container exporter = only(pod);
    assertThat(exporter.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9100));
    assertThat(exporter.getVolumeMounts()).allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()));
    assertNonRoot("node-exporter", pod);
    assertNonRoot("kube-state-metrics", object(Deployment.class, "kube-state-metrics").getSpec().getTemplate().getSpec());
    assertNonRoot("prometheus", object(Deployment.class, "prometheus").getSpec().getTemplate().getSpec());
  }

  @Test
  void theScrapeConfigHasAJobPerSource() throws IOException {
    Map<String, Map<String, Object>> jobs = scrapeJobs();
    assertThat(jobs).containsKeys("dcgm-exporter", "node-exporter", "kube-state-metrics", "kubelet", "cadvisor",
        "hami-device-monitor");
    // Each discovered through the Kubernetes API, and kept by its labels and port.
    assertThat(keepRule(jobs.get("dcgm-exporter"))).isEqualTo("dcgm-exporter;metrics");
    assertThat(keepRule(jobs.get("node-exporter"))).isEqualTo("node-exporter;metrics");
    assertThat(keepRule(jobs.get("kube-state-metrics"))).isEqualTo("kube-state-metrics;http-metrics");
    // HAMi's monitor: the vgpu-monitor container of every hami-device-plugin pod, on :9394 of the pod's address
    // (HAMi's chart declares the port on the container only from v2.10.0).
    assertThat(keepRule(jobs.get("hami-device-monitor"))).isEqualTo("hami-device-plugin;vgpu-monitor");
    assertThat(sourceLabels(jobs.get("hami-device-monitor"))).contains(
        "__meta_kubernetes_pod_label_app_kubernetes_io_component", "__meta_kubernetes_pod_container_name");
    assertThat(relabels(jobs.get("hami-device-monitor"))).filteredOn(r -> "__address__".equals(r.get("target_label")))
        .extracting(r -> String.valueOf(r.get("replacement"))).containsExactly("$1:9394", "[$1]:9394");
    assertThat(sd(jobs.get("hami-device-monitor"))).containsEntry("role", "pod")
        .containsEntry("namespaces", Map.of("names", List.of("kube-system")));
    for (String job : List.of("dcgm-exporter", "node-exporter", "kube-state-metrics")) {
      assertThat(sd(jobs.get(job))).as(job).containsEntry("role", "pod")
          .containsEntry("namespaces", Map.of("names", List.of(NS)));
    }
    // The session pods' namespace and pod labels of HAMi's per-container series survive the scrape.
    assertThat(jobs.get("hami-device-monitor")).containsEntry("honor_labels", true);
    assertThat(jobs.get("dcgm-exporter")).containsEntry("honor_labels", true);
    assertThat(jobs.get("kube-state-metrics")).containsEntry("honor_labels", true);
    // The kubelets (cAdvisor among them), on their own port with the service account's token.
    for (String job : List.of("kubelet", "cadvisor")) {
      assertThat(sd(jobs.get(job))).as(job).containsEntry("role", "node");
      assertThat(jobs.get(job)).as(job).containsEntry("scheme", "https")
          .containsEntry("authorization", Map.of("credentials_file", "/var/run/secrets/kubernetes.io/serviceaccount/token"));
    }
    assertThat(jobs.get("cadvisor")).containsEntry("metrics_path", "/metrics/cadvisor");
    // No job relabels in a namespace or pod label, which would push the exported ones aside.
    for (String job : List.of("dcgm-exporter", "hami-device-monitor", "kube-state-metrics", "node-exporter", "kubelet",
        "cadvisor")) {
      assertThat(targetLabels(jobs.get(job))).as(job).doesNotContain("namespace", "pod", "container");
    }
  }

  /**
   * The prometheus.yml loaded by a real Prometheus with the Deployment's own flags, and its relabeling run on what
   * Kubernetes service discovery would hand it. Debian's build here has no Kubernetes discovery, so each job's
   * kubernetes_sd_configs is swapped for a file of target groups carrying the labels the pod and node roles set
   * ({@code __meta_kubernetes_*}, as Prometheus's discovery/kubernetes/pod.go and node.go name them) for a few pods
   * and nodes like a gShare cluster's; {@link #theScrapeConfigHasAJobPerSource} checks the discovery part. The
   * targets Prometheus then keeps, their address, path and labels, are read from its /api/v1/targets. A misspelt
   * field does not load.
   */
  @Test
  void aRealPrometheusLoadsTheConfigAndItsRelabelingFindsEachSource() throws Exception {
    Path prometheus = repoRoot().resolve(".tools/bin/prometheus");
    if (!Files.isExecutable(prometheus)) {
      fail("no " + prometheus + ": run make tools (hack/tools.sh) first");
    }
    String config = withDiscoveryFiles(object(ConfigMap.class, "prometheus-config").getData().get("prometheus.yml"));
    List<String> args = only(object(Deployment.class, "prometheus").getSpec().getTemplate().getSpec()).getArgs();
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Started server = startPrometheus(prometheus, args, Files.writeString(dir.resolve("prometheus.yml"), config), "ok", port);
    try {
      assertThat(server.ready()).as("Prometheus ready; its log:\n%s", server.log()).isTrue();
      assertThat(server.log().toString()).contains("Completed loading of configuration file");
      Map<String, List<String>> expected = new LinkedHashMap<>();
      expected.put("dcgm-exporter", List.of("http://10.244.1.10:9400/metrics node=sim-h100-0"));
      expected.put("node-exporter", List.of("http://192.168.0.11:9100/metrics node=sim-h100-0"));
      expected.put("kube-state-metrics", List.of("http://10.244.2.7:8080/metrics node=null"));
      expected.put("kubelet", List.of("https://192.168.0.11:10250/metrics node=sim-h100-0",
          "https://192.168.0.12:10250/metrics node=sim-a100-0"));
      expected.put("cadvisor", List.of("https://192.168.0.11:10250/metrics/cadvisor node=sim-h100-0",
          "https://192.168.0.12:10250/metrics/cadvisor node=sim-a100-0"));
      // One per node whatever HAMi's version (2.10 declares the port, 2.9 does not); not the device-plugin
      // container, not the scheduler, not kube-proxy.
      expected.put("hami-device-monitor", List.of("http://10.244.1.20:9394/metrics node=sim-h100-0",
          "http://10.244.3.20:9394/metrics node=sim-a100-0"));
      // The api's two ports give one target, on the annotated port and path; the worker asks for nothing.
      expected.put("gshare-system", List.of("http://10.244.2.9:9090/actuator/prometheus node=null"));
      expected.put("prometheus", List.of("http://localhost:9090/metrics node=null"));
      HttpClient http = HttpClient.newHttpClient();
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
        Map<String, List<String>> found = new TreeMap<>();
        for (Map<String, Object> target : activeTargets(http, port)) {
          @SuppressWarnings("unchecked")
          Map<String, String> labels = (Map<String, String>) target.get("labels");
          found.computeIfAbsent(labels.get("job"), k -> new ArrayList<>()).add(target.get("scrapeUrl") + " node=" + labels.get("node"));
          if (!labels.get("job").equals("gshare-system")) {
            assertThat(labels.keySet()).as("labels of %s", target.get("scrapeUrl")).doesNotContain("namespace", "pod");
          }
        }
        found.values().forEach(Collections::sort);
        assertThat(found).isEqualTo(new TreeMap<>(expected));
      });
    } finally {
      server.stop();
    }

    String broken = config.replaceFirst("honor_labels: true", "honour_labels: true");
    assertThat(broken).isNotEqualTo(config);
    Started refused = startPrometheus(prometheus, args, Files.writeString(dir.resolve("broken.yml"), broken), "broken", port);
    refused.stop();
    assertThat(refused.ready()).isFalse();
    assertThat(refused.log().toString()).contains("Error loading config").contains("honour_labels");
  }

  @Test
  void everyImageIsPinnedToAnExactTag() throws IOException {
    List<String> images = new ArrayList<>();
    for (HasMetadata object : objects()) {
      PodSpec pod = object instanceof Deployment d ? d.getSpec().getTemplate().getSpec()
          : object instanceof DaemonSet ds ? ds.getSpec().getTemplate().getSpec() : null;
      if (pod != null) {
        Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream()).forEach(c -> images.add(c.getImage()));
      }
    }
    assertThat(images).hasSize(4);
    // The placeholder registry (make deploy-monitoring puts MONITORING_REGISTRY there), an upstream path, a version.
    Pattern pinned = Pattern.compile("registry\\.example\\.com(/[a-z0-9._-]+)+:[A-Za-z0-9._-]*[0-9][A-Za-z0-9._-]*");
    for (String image : images) {
      assertThat(image).as("the placeholder registry, a path and a versioned tag").matches(pinned);
      assertThat(image.substring(image.lastIndexOf(':') + 1)).as(image).isNotIn("latest", "main", "master", "stable");
    }
    assertThat(Files.readString(repoRoot().resolve(STACK))).doesNotContain(":latest");
    // Each Deployment's and DaemonSet's version label says the tag it runs.
    for (HasMetadata object : objects()) {
      PodSpec pod = object instanceof Deployment d ? d.getSpec().getTemplate().getSpec()
          : object instanceof DaemonSet ds ? ds.getSpec().getTemplate().getSpec() : null;
      if (pod != null) {
        String version = object.getMetadata().getLabels().get("app.kubernetes.io/version");
        String tag = only(pod).getImage().substring(only(pod).getImage().lastIndexOf(':') + 1);
        assertThat(tag).as(kindAndName(object)).matches("v?" + Pattern.quote(version) + "(-[a-z0-9.]+)?");
      }
    }
  }

  // ------------------------------------------------------------------------------------------------------ helpers

  private static void assertNonRoot(String what, PodSpec pod) {
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).as(what).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).as(what).isPositive();
    for (Container c : pod.getContainers()) {
      assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).as(what).isFalse();
      assertThat(c.getSecurityContext().getCapabilities().getDrop()).as(what).containsExactly("ALL");
      assertThat(c.getSecurityContext().getCapabilities().getAdd()).as(what).isNullOrEmpty();
      assertThat(c.getSecurityContext().getPrivileged()).as(what).isNotEqualTo(Boolean.TRUE);
    }
  }

  private static Container only(PodSpec pod) {
    assertThat(pod.getContainers()).hasSize(1);
    return pod.getContainers().get(0);
  }

  /** The verbs the role grants on a core or named-group resource. */
  private static List<String> grants(ClusterRole role, String resource) {
    return role.getRules().stream().filter(r -> r.getResources().contains(resource)).flatMap(r -> r.getVerbs().stream())
        .distinct().toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> scrapeJobs() throws IOException {
    String yml = object(ConfigMap.class, "prometheus-config").getData().get("prometheus.yml");
    Map<String, Object> config = YAML.readValue(yml, Map.class);
    Map<String, Map<String, Object>> jobs = new LinkedHashMap<>();
    for (Object job : (List<Object>) config.get("scrape_configs")) {
      Map<String, Object> j = (Map<String, Object>) job;
      assertThat(jobs.put((String) j.get("job_name"), j)).as("one job named %s", j.get("job_name")).isNull();
    }
    return jobs;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> sd(Map<String, Object> job) {
    List<Object> sds = (List<Object>) job.get("kubernetes_sd_configs");
    assertThat(sds).as("kubernetes_sd_configs of %s", job.get("job_name")).hasSize(1);
    Map<String, Object> sd = (Map<String, Object>) sds.get(0);
    assertThat(sd.keySet()).as("fields of kubernetes_sd_configs this check knows").isSubsetOf(Set.of("role", "namespaces"));
    return sd;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> relabels(Map<String, Object> job) {
    return ((List<Object>) job.getOrDefault("relabel_configs", List.of())).stream().map(r -> (Map<String, Object>) r).toList();
  }

  private static String keepRule(Map<String, Object> job) {
    return relabels(job).stream().filter(r -> "keep".equals(r.get("action"))).map(r -> String.valueOf(r.get("regex")))
        .findFirst().orElse(null);
  }

  @SuppressWarnings("unchecked")
  private static List<String> sourceLabels(Map<String, Object> job) {
    return relabels(job).stream().flatMap(r -> ((List<String>) r.getOrDefault("source_labels", List.of())).stream()).toList();
  }

  private static List<String> targetLabels(Map<String, Object> job) {
    return relabels(job).stream().map(r -> (String) r.get("target_label")).filter(t -> t != null).toList();
  }

  /**
   * prometheus.yml with each job's kubernetes_sd_configs replaced by a file of the target groups its role and
   * namespaces would discover (see {@link #discovered}).
   */
  @SuppressWarnings("unchecked")
  private String withDiscoveryFiles(String yml) throws IOException {
    Map<String, Object> config = YAML.readValue(yml, Map.class);
    ObjectMapper json = new ObjectMapper();
    for (Object job : (List<Object>) config.get("scrape_configs")) {
      Map<String, Object> j = (Map<String, Object>) job;
      Object sds = j.remove("kubernetes_sd_configs");
      if (sds != null) {
        Map<String, Object> sd = (Map<String, Object>) ((List<Object>) sds).get(0);
        String role = (String) sd.get("role");
        List<String> namespaces = sd.containsKey("namespaces")
            ? (List<String>) ((Map<String, Object>) sd.get("namespaces")).get("names") : List.of();
        Path file = dir.resolve("sd-" + j.get("job_name") + ".json");
        json.writeValue(file.toFile(), discovered(role, namespaces));
        j.put("file_sd_configs", List.of(Map.of("files", List.of(file.toString()))));
      }
    }
    return YAML.writeValueAsString(config);
  }

  /**
   * The target groups Kubernetes discovery would give for the role in those namespaces (all when empty): one per
   * declared container port, one without a port for a container that declares none (pod role); one per node at
   * its kubelet's address (node role).
   */
  private static List<Map<String, Object>> discovered(String role, List<String> namespaces) {
    List<Map<String, Object>> groups = new ArrayList<>();
    if (role.equals("node")) {
      for (String[] node : new String[][] {{"sim-h100-0", "192.168.0.11"}, {"sim-a100-0", "192.168.0.12"}}) {
        groups.add(Map.of("targets", List.of(node[1] + ":10250"), "labels", Map.of("__meta_kubernetes_node_name", node[0],
            "__meta_kubernetes_node_label_gpu", "on", "__meta_kubernetes_node_address_InternalIP", node[1])));
      }
      return groups;
    }
    record Pod(String namespace, String name, String ip, String node, Map<String, String> labels,
        Map<String, String> annotations, Map<String, List<String>> containerPorts) {}
    List<Pod> pods = List.of(
        new Pod(NS, "dcgm-exporter-x1", "10.244.1.10", "sim-h100-0", Map.of("app.kubernetes.io/name", "dcgm-exporter"),
            Map.of(), Map.of("dcgm-exporter", List.of("metrics:9400"))),
        new Pod(NS, "node-exporter-x2", "192.168.0.11", "sim-h100-0", Map.of("app.kubernetes.io/name", "node-exporter"),
            Map.of(), Map.of("node-exporter", List.of("metrics:9100"))),
        new Pod(NS, "kube-state-metrics-x3", "10.244.2.7", "sim-cpu-0", Map.of("app.kubernetes.io/name", "kube-state-metrics"),
            Map.of(), Map.of("kube-state-metrics", List.of("http-metrics:8080", "telemetry:8081"))),
        new Pod(NS, "prometheus-x4", "10.244.2.8", "sim-cpu-0", Map.of("app.kubernetes.io/name", "prometheus"),
            Map.of(), Map.of("prometheus", List.of("http:9090"))),
        // HAMi 2.10 (the monitor declares :9394) and 2.9 (nothing declared), and neighbours in kube-system.
        new Pod("kube-system", "hami-device-plugin-a", "10.244.1.20", "sim-h100-0",
            Map.of("app.kubernetes.io/component", "hami-device-plugin"), Map.of(),
            Map.of("device-plugin", List.of(), "vgpu-monitor", List.of("metrics:9394"))),
        new Pod("kube-system", "hami-device-plugin-b", "10.244.3.20", "sim-a100-0",
            Map.of("app.kubernetes.io/component", "hami-device-plugin"), Map.of(),
            Map.of("device-plugin", List.of(), "vgpu-monitor", List.of())),
        new Pod("kube-system", "hami-scheduler-c", "10.244.2.30", "sim-cpu-0",
            Map.of("app.kubernetes.io/component", "hami-scheduler"), Map.of(),
            Map.of("vgpu-scheduler-extender", List.of("http:9395"))),
        new Pod("kube-system", "kube-proxy-d", "192.168.0.11", "sim-h100-0", Map.of("k8s-app", "kube-proxy"), Map.of(),
            Map.of("kube-proxy", List.of())),
        new Pod("gshare-system", "gshare-api-e", "10.244.2.9", "sim-cpu-0", Map.of("app.kubernetes.io/name", "gshare"),
            Map.of("prometheus.io/scrape", "true", "prometheus.io/port", "9090", "prometheus.io/path", "/actuator/prometheus"),
            Map.of("api", List.of("http:8080", "management:9090"))),
        new Pod("gshare-system", "gshare-operator-f", "10.244.2.10", "sim-cpu-0", Map.of("app.kubernetes.io/name", "gshare"),
            Map.of(), Map.of("worker", List.of())));
    for (Pod pod : pods) {
      if (!namespaces.isEmpty() && !namespaces.contains(pod.namespace())) {
        continue;
      }
      Map<String, String> common = new LinkedHashMap<>();
      common.put("__meta_kubernetes_namespace", pod.namespace());
      common.put("__meta_kubernetes_pod_name", pod.name());
      common.put("__meta_kubernetes_pod_ip", pod.ip());
      common.put("__meta_kubernetes_pod_node_name", pod.node());
      common.put("__meta_kubernetes_pod_phase", "Running");
      pod.labels().forEach((k, v) -> common.put("__meta_kubernetes_pod_label_" + k.replaceAll("[^a-zA-Z0-9_]", "_"), v));
      pod.annotations().forEach((k, v) -> common.put("__meta_kubernetes_pod_annotation_" + k.replaceAll("[^a-zA-Z0-9_]", "_"), v));
      pod.containerPorts().forEach((container, ports) -> {
        if (ports.isEmpty()) {
          Map<String, String> labels = new LinkedHashMap<>(common);
          labels.put("__meta_kubernetes_pod_container_name", container);
          groups.add(Map.of("targets", List.of(pod.ip()), "labels", labels));
        }
        for (String port : ports) {
          Map<String, String> labels = new LinkedHashMap<>(common);
          labels.put("__meta_kubernetes_pod_container_name", container);
          labels.put("__meta_kubernetes_pod_container_port_name", port.substring(0, port.indexOf(':')));
          labels.put("__meta_kubernetes_pod_container_port_number", port.substring(port.indexOf(':') + 1));
          labels.put("__meta_kubernetes_pod_container_port_protocol", "TCP");
          groups.add(Map.of("targets", List.of(pod.ip() + ":" + port.substring(port.indexOf(':') + 1)), "labels", labels));
        }
      });
    }
    return groups;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> activeTargets(HttpClient http, int port) throws Exception {
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/api/v1/targets")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    Map<String, Object> body = new ObjectMapper().readValue(answer.body(), Map.class);
    return (List<Map<String, Object>>) ((Map<String, Object>) body.get("data")).get("activeTargets");
  }

  private record Started(Process process, boolean ready, StringBuffer log) {
    void stop() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /**
   * Starts Prometheus with the Deployment's flags, the config file, storage and listen address swapped for local
   * ones, and waits until it is ready (or has exited). Its log is drained all along.
   */
  private Started startPrometheus(Path binary, List<String> deploymentArgs, Path config, String name, int port)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(binary.toString()));
    for (String arg : deploymentArgs) {
      if (arg.startsWith("--config.file=")) {
        command.add("--config.file=" + config);
      } else if (arg.startsWith("--storage.tsdb.path=")) {
        command.add("--storage.tsdb.path=" + Files.createDirectories(dir.resolve("tsdb-" + name)));
      } else if (arg.startsWith("--web.listen-address=")) {
        command.add("--web.listen-address=127.0.0.1:" + port);
      } else {
        command.add(arg);
      }
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuffer log = new StringBuffer();
    CompletableFuture<Boolean> ready = new CompletableFuture<>();
    Thread drain = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          log.append(line).append('\n');
          if (line.contains("Server is ready to receive web requests")) {
            ready.complete(true);
          }
        }
      } catch (IOException e) {
        log.append(e);
      }
      ready.complete(false);
    }, "prometheus-log-" + name);
    drain.setDaemon(true);
    drain.start();
    try {
      return new Started(p, ready.get(90, TimeUnit.SECONDS), log);
    } catch (TimeoutException e) {
      new Started(p, false, log).stop();
      return fail("Prometheus neither ready nor gone after 90 s:\n" + log);
    }
  }

  private static List<String> documents(String yaml) {
    List<String> docs = new ArrayList<>();
    for (String doc : yaml.split("(?m)^---\\s*$")) {
      if (KIND.matcher(doc).find()) {
        docs.add(doc);
      }
    }
    return docs;
  }

  private static List<HasMetadata> objects() throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    for (String doc : documents(Files.readString(repoRoot().resolve(STACK)))) {
      objects.add((HasMetadata) Serialization.unmarshal(doc));
    }
    return objects;
  }

  private static <T extends HasMetadata> T object(Class<T> type, String name) throws IOException {
    return objects().stream().filter(type::isInstance).map(type::cast).filter(o -> o.getMetadata().getName().equals(name))
        .findFirst().orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name + " in " + STACK));
  }

  private static String kindAndName(String doc) {
    return kindAndName((HasMetadata) Serialization.unmarshal(doc));
  }

  private static String kindAndName(HasMetadata object) {
    return object.getKind() + "/" + object.getMetadata().getName();
  }

  private static String run(List<String> command, Path workDir) throws IOException, InterruptedException {
    return TestProcesses.run(command, workDir, null);
  }

  /** The repository this test runs in, with the stack and .tools/bin/kubectl (make tools installs it). */
  private static Path repoRoot() {
    for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
      if (Files.isRegularFile(at.resolve(STACK))) {
        if (!Files.isExecutable(at.resolve(".tools/bin/kubectl"))) {
          return fail("no .tools/bin/kubectl in " + at + ": run make tools (hack/tools.sh) first");
        }
        return at;
      }
    }
    return fail("no " + STACK + " above " + Path.of("").toAbsolutePath());
  }
}
