package io.gshare.sim.kube;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.AuthInfoBuilder;
import io.fabric8.kubernetes.api.model.ConfigBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane on loopback, made of the binaries {@code hack/tools.sh} builds: etcd, the
 * kube-apiserver (secure port, a CA and certificates made on the fly by {@link KubePki}, RBAC and Node
 * authorization, the default admission plugins, a service-account issuer so that TokenRequest and bound tokens are
 * real), the kube-controller-manager, the kube-scheduler and KWOK, which plays the kubelet of the nodes annotated
 * {@value #KWOK_NODE_ANNOTATION}={@value #KWOK_NODE_VALUE}: they turn Ready, keep a lease, and run the pods bound
 * to them. Nothing here answers an API call itself.
 *
 * <p>{@link #shared()} is one instance per JVM for tests that can share a cluster; {@link #start(Options)} one of
 * their own. With a kept data directory, etcd's data, the PKI and the kubeconfigs outlive a restart.
 */
public final class LocalKubernetes implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalKubernetes.class);

  public static final String KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";
  public static final String KWOK_NODE_VALUE = "fake";
  /** The admin's user name; it is in {@code system:masters}. */
  public static final String ADMIN_USER = "gshare-admin";
  /** The range Services take their cluster IPs from. */
  static final String SERVICE_CIDR = "10.96.0.0/16";
  static final String SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";
  /** How long the node lifecycle controller waits for a silent kubelet before it marks the node unreachable. */
  public static final Duration NODE_MONITOR_GRACE = Duration.ofSeconds(20);
  /** The lease KWOK keeps per node (renewed every quarter of it, as the kubelet does). */
  static final int NODE_LEASE_SECONDS = 12;

  /**
   * @param dataDir where etcd's data, the PKI, kubeconfigs and logs are kept; null: a temporary directory deleted
   *     on close
   * @param tools the binaries
   * @param apiPort the apiserver's secure port on 127.0.0.1; 0 picks a free one
   */
  public record Options(Path dataDir, KubeTools tools, int apiPort) {
    public static Options defaults() {
      return new Options(null, KubeTools.locate(), 0);
    }

    public Options withDataDir(Path dir) {
      return new Options(dir, tools, apiPort);
    }

    /** The apiserver's port; 0 picks a free one. A kept port keeps the kubeconfigs given out before valid. */
    public Options withApiPort(int port) {
      return new Options(dataDir, tools, port);
    }
  }

  private static LocalKubernetes shared;

  private final Path dir;
  private final boolean temporary;
  private final KubeTools tools;
  private final int apiPort;
  private final List<ControlPlaneProcess> processes = new ArrayList<>();
  private final Path adminKubeconfig;
  private final KubePki pki;
  private final KubePki.Pair adminCertificate;
  private final Duration startup;

  private LocalKubernetes(Options options) {
    long started = System.nanoTime();
    this.tools = options.tools();
    this.temporary = options.dataDir() == null;
    try {
      this.dir = temporary ? Files.createTempDirectory("gshare-kube-") : Files.createDirectories(options.dataDir());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.pki = KubePki.in(dir.resolve("pki"));
    this.apiPort = options.apiPort() == 0 ? LoopbackPorts.free() : options.apiPort();
    this.adminCertificate = pki.client("admin", ADMIN_USER, List.of("system:masters"));
    this.adminKubeconfig = writeCertificateKubeconfig(dir.resolve("admin.kubeconfig"), ADMIN_USER, adminCertificate);
    try {
      startEtcdAndApiserver();
      startControllers();
    } catch (RuntimeException e) {
      stopAll();
      throw e;
    }
    this.startup = Duration.ofNanos(System.nanoTime() - started);
    log.info("real Kubernetes {} on {} ready in {} ms (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, "
        + "kwok; logs in {})", serverVersion(), url(), startup.toMillis(), dir.resolve("logs"));
  }

  public static LocalKubernetes start(Options options) {
    return new LocalKubernetes(options);
  }

  /** One cluster for the whole JVM, started on first use and stopped when the JVM exits. */
  public static synchronized LocalKubernetes shared() {
    if (shared == null) {
      LocalKubernetes started = start(Options.defaults());
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "gshare-kube-stop"));
      shared = started;
    }
    return shared;
  }

  private void startEtcdAndApiserver() {
    int etcdPort = LoopbackPorts.free();
    int peerPort = LoopbackPorts.free();
    String etcdUrl = "http://127.0.0.1:" + etcdPort;
    processes.add(ControlPlaneProcess.start("etcd", tools.binary("etcd"), List.of(
        "--name=gshare", "--data-dir=" + dir.resolve("etcd"),
        "--listen-client-urls=" + etcdUrl, "--advertise-client-urls=" + etcdUrl,
        "--listen-peer-urls=http://127.0.0.1:" + peerPort,
        "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
        "--initial-cluster=gshare=http://127.0.0.1:" + peerPort,
        "--log-level=warn",
        // A test cluster's data is worth no fsync; a machine crash loses at most what the dev runtime re-seeds.
        "--unsafe-no-fsync=true"), dir.resolve("logs")));
    awaitHttp("etcd", etcdUrl + "/health", body -> body.contains("\"health\":\"true\""), Duration.ofSeconds(30));

    KubePki.Pair serving = pki.serving("apiserver", List.of("localhost", "kubernetes", "kubernetes.default",
        "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"), List.of("127.0.0.1", "10.96.0.1"));
    KubePki.Pair serviceAccount = pki.serviceAccountKeys();
    KubePki.Pair kubeletClient = pki.client("apiserver-kubelet-client", "kube-apiserver-kubelet-client",
        List.of("system:masters"));
    processes.add(ControlPlaneProcess.start("kube-apiserver", tools.binary("kube-apiserver"), List.of(
        "--etcd-servers=" + etcdUrl,
        "--bind-address=127.0.0.1", "--secure-port=" + apiPort,
        // On loopback the apiserver refuses 127.0.0.1 as its advertised address unless it keeps no endpoints.
        "--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
        "--tls-cert-file=" + serving.certificate(), "--tls-private-key-file=" + serving.key(),
        "--client-ca-file=" + pki.caCertificate(),
        "--kubelet-client-certificate=" + kubeletClient.certificate(),
        "--kubelet-client-key=" + kubeletClient.key(),
        "--service-account-issuer=" + SERVICE_ACCOUNT_ISSUER,
        "--service-account-key-file=" + serviceAccount.certificate(),
        "--service-account-signing-key-file=" + serviceAccount.key(),
        "--api-audiences=" + SERVICE_ACCOUNT_ISSUER,
        "--authorization-mode=Node,RBAC",
        "--service-cluster-ip-range=" + SERVICE_CIDR,
        "--allow-privileged=true",
        "--profiling=false",
        "--v=1"), dir.resolve("logs")));
    awaitReady();
  }

  private void startControllers() {
    KubePki.Pair controllerManager = pki.client("controller-manager", "system:kube-controller-manager", List.of());
    KubePki.Pair scheduler = pki.client("scheduler", "system:kube-scheduler", List.of());
    KubePki.Pair kwok = pki.client("kwok", "kwok-controller", List.of("system:masters"));
    processes.add(ControlPlaneProcess.start("kube-controller-manager", tools.binary("kube-controller-manager"), List.of(
        "--kubeconfig=" + writeCertificateKubeconfig(dir.resolve("controller-manager.kubeconfig"),
            "system:kube-controller-manager", controllerManager),
        "--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0",
        "--use-service-account-credentials=true",
        "--service-account-private-key-file=" + pki.serviceAccountKeys().key(),
        "--root-ca-file=" + pki.caCertificate(),
        "--cluster-signing-cert-file=" + pki.caCertificate(),
        "--cluster-signing-key-file=" + dir.resolve("pki/ca.key"),
        // A node whose kubelet went silent is marked unreachable in 20 s, not 50: the fault suite drops one
        // (KubeCluster.dropNode) and waits for it. KWOK renews each lease every 3 s (below), well inside that.
        "--node-monitor-period=2s", "--node-monitor-grace-period=" + NODE_MONITOR_GRACE.toSeconds() + "s",
        "--v=1"), dir.resolve("logs")));
    processes.add(ControlPlaneProcess.start("kube-scheduler", tools.binary("kube-scheduler"), List.of(
        "--kubeconfig=" + writeCertificateKubeconfig(dir.resolve("scheduler.kubeconfig"), "system:kube-scheduler",
            scheduler),
        "--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0", "--v=1"), dir.resolve("logs")));
    startKwok(kwok);
    // The ServiceAccount controller's default account is what every pod needs before it is admitted.
    try (KubernetesClient client = newClient()) {
      await("the controller-manager's default ServiceAccount", Duration.ofSeconds(60),
          () -> client.serviceAccounts().inNamespace("default").withName("default").get() != null);
    }
  }

  /**
   * Starts KWOK with its stages as Stage objects, the nodes' first. KWOK's pod controller honours node leases (runs
   * nothing on a node whose kubelet is silent, {@link KubeCluster#dropNode}) only when its node controller started
   * before it; given its stages in a file, KWOK v0.8.0 starts the two in a map's order, pods first about one start in
   * eight. As objects, each kind's controller starts when its first stage appears, so the pod stages are applied
   * once KWOK has started the nodes' (it logs each start).
   */
  private void startKwok(KubePki.Pair certificate) {
    List<GenericKubernetesResource> stages = kwokStages();
    Predicate<GenericKubernetesResource> nodeStage = s -> "Node".equals(s.get("spec", "resourceRef", "kind"));
    try (KubernetesClient client = newClient()) {
      var crds = client.apiextensions().v1().customResourceDefinitions();
      var crd = crds.load(tools.kwokStageCrd().toFile()).item();
      client.resource(crd).forceConflicts().serverSideApply();
      crds.withName(crd.getMetadata().getName()).waitUntilCondition(c -> c.getStatus() != null
          && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream().anyMatch(k -> "Established".equals(k.getType())
          && "True".equals(k.getStatus())), 30, TimeUnit.SECONDS);
      // A kept etcd holds the last run's stages: the pods' go, or KWOK would find both kinds at once again.
      stages.stream().filter(nodeStage.negate())
          .forEach(stage -> client.genericKubernetesResources(STAGES).withName(stage.getMetadata().getName()).delete());
    }
    Path kwokLog = logDir().resolve("kwok.log");
    long logFrom = kwokLog.toFile().length();
    processes.add(ControlPlaneProcess.start("kwok", tools.binary("kwok"), List.of(
        "--kubeconfig=" + writeCertificateKubeconfig(dir.resolve("kwok.kubeconfig"), "kwok-controller", certificate),
        "--enable-crds=Stage",
        "--manage-all-nodes=false",
        "--manage-nodes-with-annotation-selector=" + KWOK_NODE_ANNOTATION + "=" + KWOK_NODE_VALUE,
        "--node-ip=127.0.0.1",
        "--node-lease-duration-seconds=" + NODE_LEASE_SECONDS,
        "--cidr=10.244.0.0/16",
        "--server-address=",
        "--v=INFO"), logDir()));
    try (KubernetesClient client = newClient()) {
      for (String kind : List.of("Node", "Pod")) {
        stages.stream().filter(s -> kind.equals(s.get("spec", "resourceRef", "kind")))
            .forEach(stage -> client.genericKubernetesResources(STAGES).resource(stage).forceConflicts()
                .serverSideApply());
        await("KWOK's " + kind + " stage controller", Duration.ofSeconds(30),
            () -> logSince(kwokLog, logFrom).lines().anyMatch(l -> l.contains("Start stage controller")
                && l.contains("\"Kind\":\"" + kind + "\"")));
      }
    }
  }

  /**
   * KWOK's Stage resource, named rather than discovered: the apiserver's discovery may not list a CRD yet for a
   * moment after it is established (fabric8 then finds no handler for a Stage; a CI run failed so).
   */
  private static final ResourceDefinitionContext STAGES = new ResourceDefinitionContext.Builder()
      .withGroup("kwok.x-k8s.io").withVersion("v1alpha1").withKind("Stage").withPlural("stages").withNamespaced(false)
      .build();

  /** KWOK's stages (from its module, installed by hack/tools.sh) followed by gShare's own (a classpath resource). */
  private List<GenericKubernetesResource> kwokStages() {
    try (var extra = LocalKubernetes.class.getResourceAsStream("/kube/kwok-gshare-stages.yaml");
        KubernetesClient client = newClient()) {
      String yaml = Files.readString(tools.kwokStages()) + "\n---\n"
          + new String(extra.readAllBytes(), StandardCharsets.UTF_8);
      List<GenericKubernetesResource> stages = new ArrayList<>();
      for (var item : client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
        stages.add(new KubernetesSerialization().convertValue(item, GenericKubernetesResource.class));
      }
      List<String> other = stages.stream().map(s -> (String) s.get("spec", "resourceRef", "kind"))
          .filter(k -> !"Node".equals(k) && !"Pod".equals(k)).toList();
      if (!other.isEmpty()) {
        throw new IllegalStateException("KWOK stages of kinds other than Node and Pod: " + other);
      }
      return stages;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String logSince(Path log, long offset) {
    try (var in = Files.newInputStream(log)) {
      in.skipNBytes(Math.min(offset, Files.size(log)));
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException notYet) {
      return "";
    }
  }

  private void awaitReady() {
    await("the apiserver's /readyz", Duration.ofSeconds(60), () -> {
      try (KubernetesClient client = newClient()) {
        return "ok".equals(client.raw(url() + "/readyz"));
      } catch (RuntimeException notYet) {
        return false;
      }
    });
  }

  /** The admin's kubeconfig (client certificate in {@code system:masters}), for kubectl and helm. */
  public Path kubeconfig() {
    return adminKubeconfig;
  }

  public String url() {
    return "https://127.0.0.1:" + apiPort;
  }

  /** How long the control plane took to start, to ready and to the default ServiceAccount. */
  public Duration startupTime() {
    return startup;
  }

  public KubeTools tools() {
    return tools;
  }

  /** Where the processes write their logs. */
  public Path logDir() {
    return dir.resolve("logs");
  }

  /** The cluster CA, PEM, as a kubeconfig's {@code certificate-authority-data} carries it (decoded). */
  public String caCertificatePem() {
    return pki.caCertificatePem();
  }

  /** The cluster's PKI: stand-ins in this package sign their serving certificates with it. */
  KubePki pki() {
    return pki;
  }

  /** The admin's client certificate: the fault proxy forwards the admin's requests with it. */
  KubePki.Pair adminCertificate() {
    return adminCertificate;
  }

  /** An admin client (in {@code system:masters}). */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(read(adminKubeconfig))).build();
  }

  /** A client that authenticates with a bearer token only: a service account's bound token, say. */
  public KubernetesClient clientForToken(String token) {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfigForToken(token))).build();
  }

  /** A kubeconfig that authenticates with {@code token}: what a service account's holder would use. */
  public String kubeconfigForToken(String token) {
    return kubeconfig("token-user", new AuthInfoBuilder().withToken(token).build());
  }

  /** The apiserver's {@code gitVersion}: {@code v1.37.2}. */
  public String serverVersion() {
    try (KubernetesClient client = newClient()) {
      return client.getKubernetesVersion().getGitVersion();
    }
  }

  private Path writeCertificateKubeconfig(Path file, String user, KubePki.Pair certificate) {
    String yaml = kubeconfig(user, new AuthInfoBuilder()
        .withClientCertificateData(base64(read(certificate.certificate())))
        .withClientKeyData(base64(read(certificate.key()))).build());
    try {
      Files.writeString(file, yaml);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  private String kubeconfig(String user, AuthInfo auth) {
    var config = new ConfigBuilder()
        .addNewCluster().withName("gshare-local").withNewCluster().withServer(url())
        .withCertificateAuthorityData(base64(pki.caCertificatePem())).endCluster().endCluster()
        .addNewUser().withName(user).withUser(auth).endUser()
        .addNewContext().withName("gshare-local").withNewContext().withCluster("gshare-local").withUser(user)
        .withNamespace("default").endContext().endContext()
        .withCurrentContext("gshare-local")
        .build();
    return "# a local, real Kubernetes control plane started by gShare's tests or dev runtime (KWOK nodes, no hardware)\n"
        + new KubernetesSerialization().asYaml(config);
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitHttp(String what, String url, Predicate<String> ok, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    await(what, timeout, () -> {
      try {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
            .build(), HttpResponse.BodyHandlers.ofString());
        return answer.statusCode() == 200 && ok.test(answer.body());
      } catch (IOException notYet) {
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    });
  }

  private void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      processes.forEach(ControlPlaneProcess::requireAlive);
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what
            + "; logs in " + logDir());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
      }
    }
  }

  /** Stops the processes in the reverse order: KWOK and the controllers, the apiserver, then etcd (else it hangs). */
  private void stopAll() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).stop(10);
    }
    processes.clear();
  }

  @Override
  public synchronized void close() {
    if (processes.isEmpty() && !Files.exists(dir)) {
      return;
    }
    stopAll();
    if (temporary) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        log.warn("could not delete {}: {}", dir, e.toString());
      }
    }
    log.info("local Kubernetes at {} stopped", url());
  }
}
