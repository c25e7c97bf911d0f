package io.gshare.activities.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.IssuedToken;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What attach and detach do to a cluster, on a real apiserver (the module's shared cluster). The worker's objects
 * have fixed names in {@code gshare-system}, so each test removes what it installed.
 */
class ClusterRemoteActivitiesImplMockTest {

  @TempDir Path dir;
  private static KubeCluster cluster;
  private static KubernetesClient observer;
  private ClusterRemoteActivitiesImpl activities;
  private final AtomicInteger signed = new AtomicInteger();

  @BeforeAll
  static void cluster() {
    cluster = SharedKubeCluster.get();
    observer = cluster.newClient();
  }

  @AfterAll
  static void closeClient() {
    observer.close();
  }

  @BeforeEach
  void start() throws Exception {
    String kubeconfig = Files.readString(cluster.writeKubeconfig(dir.resolve("kubeconfig")));
    WorkerObjects.Settings settings = new WorkerObjects.Settings("registry.example.com/gshare/cluster-worker:1.0",
        "IfNotPresent", "temporal.example.com:7233", "default", "https://gshare.example.com", 15, 300);
    activities = new ClusterRemoteActivitiesImpl(
        id -> kubeconfig, id -> new OperatorTokenSigner.Signed("token-" + signed.incrementAndGet() + "-for-" + id, "jti-" + signed.get(),
            Instant.EPOCH, Instant.EPOCH.plusSeconds(60)), new KubernetesWorkerDeployer(settings));
  }

  /** What a test installed goes (the detach's own removal, then what only a test made). */
  @AfterEach
  void stop() {
    activities.removeWorker("clu_a");
    observer.apps().deployments().inNamespace(WorkerObjects.NAMESPACE).withName("gshare-cluster-worker").delete();
    observer.secrets().inNamespace(WorkerObjects.NAMESPACE).withName("gshare-temporal-client").delete();
  }

  /** The Secret's value as the apiserver answers it: in {@code data}, base64 ({@code stringData} is write-only). */
  private static String secretValue(String name, String key) {
    var secret = observer.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(name).get();
    assertThat(secret.getStringData()).as("never read back").isNullOrEmpty();
    return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }

  @Test
  void probesAndChecksTheRuntimeFromTheControlPlane() {
    assertThat(activities.probeApiserver("clu_a")).isEqualTo(cluster.kubernetes().serverVersion());
    ClusterDescription d = activities.checkRuntime("clu_a");
    assertThat(d.runtimeClassNvidia()).isTrue();
    assertThat(d.gpuCount()).as("the seed's 12 and the GPUs of nodes other tests added").isGreaterThanOrEqualTo(12);
  }

  /** Another cluster's kube-system has another uid: Kubernetes' own property, shown by the api's ClusterLifecycleIT. */
  @Test
  void theProbeRecordsWhichClusterTheKubeconfigReaches() throws Exception {
    String kubeconfig = Files.readString(cluster.writeKubeconfig(dir.resolve("kubeconfig-id")));
    List<String> seen = new ArrayList<>();
    ClusterRemoteActivitiesImpl recording = new ClusterRemoteActivitiesImpl(id -> kubeconfig,
        id -> new OperatorTokenSigner.Signed("t", "j", Instant.EPOCH, Instant.EPOCH), null,
        OperatorTokenLedger.NONE, (id, uid) -> seen.add(id + " " + uid));
    recording.probeApiserver("clu_a");
    String uid = observer.namespaces().withName("kube-system").get().getMetadata().getUid();
    assertThat(uid).isNotBlank();
    assertThat(seen).containsExactly("clu_a " + uid);
    assertThat(ClusterRemoteActivitiesImpl.identityOf(kubeconfig)).isEqualTo(uid);
  }

  @Test
  void installsTheWorkerIdempotently() {
    // A worker Deployment under the name it had before it took the operator guide's: a redeploy replaces it.
    observer.namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName("gshare-system").endMetadata().build()).createOr(n -> n.update());
    observer.apps().deployments().inNamespace("gshare-system").resource(new io.fabric8.kubernetes.api.model.apps
        .DeploymentBuilder().withNewMetadata().withName("gshare-cluster-worker").endMetadata().withNewSpec()
        .withNewSelector().addToMatchLabels("app", "old").endSelector().withNewTemplate().withNewMetadata()
        .addToLabels("app", "old").endMetadata().withNewSpec().addNewContainer().withName("w").withImage("old")
        .endContainer().endSpec().endTemplate().endSpec().build()).create();
    for (int run = 0; run < 2; run++) {
      activities.prepareNamespace("clu_a");
      activities.installOperatorToken("clu_a");
      activities.deployWorker("clu_a");
    }

    assertThat(observer.namespaces().withName("gshare-system").get().getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "gshare").containsEntry("gshare.io/cluster-id", "clu_a");
    assertThat(observer.serviceAccounts().inNamespace("gshare-system").withName("gshare-cluster-worker").get()).isNotNull();
    assertThat(observer.rbac().clusterRoleBindings().withName("gshare-cluster-worker").get().getSubjects())
        .singleElement().satisfies(s -> assertThat(s.getNamespace()).isEqualTo("gshare-system"));
    assertThat(secretValue("gshare-operator-internal-jwt", "internal-jwt")).isEqualTo("token-2-for-clu_a");
    assertThat(observer.apps().deployments().inNamespace("gshare-system").list().getItems()).hasSize(1);

    // The name the operator guide's troubleshooting uses: kubectl -n gshare-system logs deploy/gshare-operator
    Deployment worker = observer.apps().deployments().inNamespace("gshare-system").withName("gshare-operator").get();
    var container = worker.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("registry.example.com/gshare/cluster-worker:1.0");
    assertThat(container.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("GSHARE_CLUSTER_ID");
      assertThat(e.getValue()).isEqualTo("clu_a");
    });
    assertThat(container.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/var/run/secrets/gshare"));
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(worker.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("gshare-cluster-worker");
    // The images' user (Jib container.user 65532).
    assertThat(worker.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser()).isEqualTo(65532L);
  }

  @Test
  void aRotationRewritesTheSecretRecordsTheTokenAndReturnsItsIdNeverTheToken() throws Exception {
    String kubeconfig = Files.readString(cluster.writeKubeconfig(dir.resolve("kubeconfig-2")));
    List<String> recorded = new ArrayList<>();
    ClusterRemoteActivitiesImpl withLedger = new ClusterRemoteActivitiesImpl(id -> kubeconfig,
        id -> new OperatorTokenSigner.Signed("token-" + signed.incrementAndGet() + "-for-" + id, "jti-" + signed.get(),
            Instant.EPOCH, Instant.EPOCH.plusSeconds(60)),
        null, (id, jti, iat, exp) -> recorded.add(id + " " + jti + " " + exp), ClusterIdentityLedger.NONE);
    withLedger.prepareNamespace("clu_a");
    withLedger.installOperatorToken("clu_a");

    var issued = withLedger.rotateOperatorToken("clu_a");

    assertThat(issued).isEqualTo(new IssuedToken("clu_a", "jti-2", 0, 60_000));
    assertThat(issued.toString()).doesNotContain("token-2");
    assertThat(secretValue("gshare-operator-internal-jwt", "internal-jwt")).isEqualTo("token-2-for-clu_a");
    // The attach's token and the rotation's, each recorded when written.
    assertThat(recorded).containsExactly("clu_a jti-1 1970-01-01T00:01:00Z", "clu_a jti-2 1970-01-01T00:01:00Z");
  }

  @Test
  void theTemporalCredentialsAnOperatorPutInTheClusterAreMountedAndNamedToTheWorker() {
    activities.prepareNamespace("clu_a");
    observer.secrets().inNamespace("gshare-system").resource(new SecretBuilder()
        .withNewMetadata().withName("gshare-temporal-client").endMetadata()
        .addToStringData("tls.crt", "cert").addToStringData("tls.key", "key").addToStringData("ca.crt", "ca")
        .addToStringData("server-name", "temporal.example.com").build()).create();
    activities.installOperatorToken("clu_a");
    activities.deployWorker("clu_a");

    var pod = observer.apps().deployments().inNamespace("gshare-system").withName("gshare-operator").get().getSpec()
        .getTemplate().getSpec();
    var env = pod.getContainers().get(0).getEnv();
    assertThat(env).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("GSHARE_TEMPORAL_TLS_CERT");
      assertThat(e.getValue()).isEqualTo("/var/run/secrets/gshare-temporal/tls.crt");
    });
    assertThat(env).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("GSHARE_TEMPORAL_TLS_CA");
      assertThat(e.getValue()).isEqualTo("/var/run/secrets/gshare-temporal/ca.crt");
    });
    assertThat(env).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("GSHARE_TEMPORAL_TLS_SERVER_NAME");
      assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("server-name");
    });
    assertThat(env).noneSatisfy(e -> assertThat(e.getName()).isEqualTo("GSHARE_TEMPORAL_API_KEY_FILE"));
    assertThat(pod.getVolumes()).filteredOn(v -> v.getSecret() != null)
        .extracting(v -> v.getSecret().getSecretName()).contains("gshare-temporal-client");
  }

  @Test
  void withoutTemporalCredentialsTheWorkerDialsPlaintext() {
    activities.prepareNamespace("clu_a");
    activities.installOperatorToken("clu_a");
    activities.deployWorker("clu_a");
    var env = observer.apps().deployments().inNamespace("gshare-system").withName("gshare-operator").get().getSpec()
        .getTemplate().getSpec().getContainers().get(0).getEnv();
    assertThat(env).noneSatisfy(e -> assertThat(e.getName()).startsWith("GSHARE_TEMPORAL_TLS"));
  }

  @Test
  void removesTheWorkerAndItsSecret() {
    activities.prepareNamespace("clu_a");
    activities.installOperatorToken("clu_a");
    activities.deployWorker("clu_a");

    activities.removeWorker("clu_a");
    activities.removeWorker("clu_a"); // nothing left to remove: no error

    assertThat(observer.apps().deployments().inNamespace("gshare-system").list().getItems()).isEmpty();
    assertThat(observer.secrets().inNamespace("gshare-system").withName("gshare-operator-internal-jwt").get()).isNull();
    assertThat(observer.rbac().clusterRoles().withName("gshare-cluster-worker").get()).isNull();
  }

  @Test
  void anUnreachableApiserverFailsFastInsteadOfRetryingInside() {
    String dead = """
        apiVersion: v1
        kind: Config
        clusters: [{name: x, cluster: {server: "http://127.0.0.1:1"}}]
        contexts: [{name: x, context: {cluster: x, user: x}}]
        current-context: x
        users: [{name: x, user: {token: t}}]
        """;
    ClusterRemoteActivitiesImpl unreachable = new ClusterRemoteActivitiesImpl(id -> dead,
        id -> new OperatorTokenSigner.Signed("t", "j", Instant.EPOCH, Instant.EPOCH), null);
    assertThatThrownBy(() -> unreachable.probeApiserver("clu_x")).isInstanceOf(RuntimeException.class);
    try (KubernetesClient client = unreachable.client("clu_x")) {
      assertThat(client.getConfiguration().getRequestRetryBackoffLimit()).isZero();
      assertThat(client.getConfiguration().getConnectionTimeout()).isEqualTo(5_000);
    }
  }
}
