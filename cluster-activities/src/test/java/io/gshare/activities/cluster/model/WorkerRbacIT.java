package io.gshare.activities.cluster.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.ClusterActivitiesImpl;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.GpuNodes;
import io.gshare.sim.kube.LocalKubernetes;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.kube.KubeNames;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cluster-worker's rights on a real apiserver with RBAC: the ServiceAccount, ClusterRole and binding that attach
 * installs ({@link WorkerObjects}), the worker's bound token minted by the TokenRequest API, and each verb the
 * worker uses asked of the apiserver as the worker ({@code SelfSubjectAccessReview}, what {@code kubectl auth can-i}
 * asks). A verb missing from the role fails here, not at a customer's.
 */
class WorkerRbacIT {

  private static final String CLUSTER = "rbac-it";
  private static final String SESSIONS = KubeNames.SESSIONS_NAMESPACE;
  private static final String SYSTEM = WorkerObjects.NAMESPACE;

  /** One request the worker makes: verb, API group, resource (with subresource), namespace (null: all). */
  record Access(String verb, String group, String resource, String subresource, String namespace, String why) {
    @Override
    public String toString() {
      return verb + " " + (group.isEmpty() ? "" : group + "/") + resource
          + (subresource == null ? "" : "/" + subresource) + (namespace == null ? "" : " in " + namespace)
          + " (" + why + ")";
    }
  }

  /** Every request the worker's code makes (activities.cluster and the cluster-worker's reporters). */
  static List<Access> usedByTheWorker() {
    return List.of(
        new Access("list", "", "nodes", null, null, "the inventory (ClusterInventory)"),
        new Access("get", "", "nodes", null, null, "the image pre-pull's node check"),
        new Access("patch", "", "nodes", null, null, "cordon and HAMi's device cordon (NodeClusterActivitiesImpl)"),
        new Access("list", "", "pods", null, null, "the drain's pods on a node, in every namespace"),
        new Access("create", "", "pods", "eviction", null, "the drain's evictions"),
        new Access("get", "", "nodes", "proxy", null, "the kubelet's stats summary (VolumeSyncReporter)"),
        new Access("create", "", "nodes", "proxy", null, "the kubelet checkpoint API (lossless pause)"),
        new Access("get", "node.k8s.io", "runtimeclasses", null, null, "RuntimeClass nvidia (describeCluster)"),
        new Access("list", "apps", "daemonsets", null, null, "HAMi's device plugin (describeCluster)"),
        new Access("list", "apps", "deployments", null, null, "the ingress controller (describeCluster)"),
        new Access("list", "storage.k8s.io", "storageclasses", null, null, "the volume sync"),
        new Access("list", "storage.k8s.io", "csistoragecapacities", null, null, "the volume sync's capacity"),
        new Access("patch", "", "namespaces", null, null, "the sessions' namespace, applied"),
        new Access("get", "", "secrets", null, SYSTEM, "its token Secret's presence (InventoryReporter)"),
        new Access("get", "", "pods", null, SESSIONS, "a session's pod"),
        new Access("list", "", "pods", null, SESSIONS, "the session status and usage reports"),
        new Access("patch", "", "pods", null, SESSIONS, "a session's pod, server-side applied"),
        new Access("create", "", "pods", null, SESSIONS, "a checkpoint builder pod, an image pre-pull pod"),
        new Access("delete", "", "pods", null, SESSIONS, "a session's pod on pause and terminate"),
        new Access("patch", "", "services", null, SESSIONS, "a session's Service"),
        new Access("delete", "", "services", null, SESSIONS, "a session's Service"),
        new Access("get", "", "persistentvolumeclaims", null, SESSIONS, "a volume's claim"),
        new Access("list", "", "persistentvolumeclaims", null, SESSIONS, "the volume sync"),
        new Access("patch", "", "persistentvolumeclaims", null, SESSIONS, "a claim applied and resized"),
        new Access("delete", "", "persistentvolumeclaims", null, SESSIONS, "a volume reclaimed"),
        new Access("patch", "networking.k8s.io", "ingresses", null, SESSIONS, "a session's Ingress"),
        new Access("delete", "networking.k8s.io", "ingresses", null, SESSIONS, "a session's Ingress"),
        new Access("patch", "gateway.networking.k8s.io", "httproutes", null, SESSIONS, "a session's HTTPRoute"),
        new Access("patch", "gateway.envoyproxy.io", "securitypolicies", null, SESSIONS, "its SecurityPolicy"),
        new Access("patch", "gateway.envoyproxy.io", "backends", null, SESSIONS, "the auth Backend"));
  }

  /** What the worker must never be able to do. */
  static List<Access> refusedToTheWorker() {
    return List.of(
        new Access("delete", "", "nodes", null, null, "remove a node"),
        new Access("create", "rbac.authorization.k8s.io", "clusterrolebindings", null, null, "grant itself more"),
        new Access("escalate", "rbac.authorization.k8s.io", "clusterroles", null, null, "widen its own role"),
        new Access("create", "", "pods", "exec", SESSIONS, "run commands in pods"),
        new Access("create", "", "serviceaccounts", "token", "kube-system", "mint other accounts' tokens"),
        new Access("delete", "", "namespaces", null, null, "delete a namespace"),
        new Access("update", "apps", "deployments", null, "kube-system", "change the cluster's own workloads"));
  }

  private static LocalKubernetes kube;
  private static KubernetesClient admin;
  private static KubernetesClient worker;

  @BeforeAll
  static void installWhatAttachInstalls() {
    kube = LocalKubernetes.shared();
    admin = kube.newClient();
    new GpuNodes(admin, CLUSTER).seed(SimSeed.defaultSeed(), Duration.ofSeconds(60));
    List<HasMetadata> attach = List.of(WorkerObjects.namespace(CLUSTER), WorkerObjects.serviceAccount(CLUSTER),
        WorkerObjects.clusterRole(CLUSTER), WorkerObjects.clusterRoleBinding(CLUSTER));
    attach.forEach(o -> admin.resource(o).fieldManager(WorkerObjects.FIELD_MANAGER).forceConflicts().serverSideApply());
    // The bound token the kubelet would project into the worker's pod, minted by the apiserver.
    TokenRequest minted = admin.serviceAccounts().inNamespace(SYSTEM).withName(WorkerObjects.NAME)
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build());
    worker = kube.clientForToken(minted.getStatus().getToken());
  }

  @AfterAll
  static void close() {
    worker.close();
    admin.close();
  }

  @Test
  void theWorkerIsItsServiceAccount() {
    var review = worker.resource(
        new SelfSubjectReviewBuilder().build()).create();
    assertThat(review.getStatus().getUserInfo().getUsername())
        .isEqualTo("system:serviceaccount:" + SYSTEM + ":" + WorkerObjects.NAME);
  }

  @ParameterizedTest(name = "allowed: {0}")
  @MethodSource("usedByTheWorker")
  void theRoleGrantsEveryRequestTheWorkerMakes(Access access) {
    assertThat(allowed(access)).as("%s", access).isTrue();
  }

  @ParameterizedTest(name = "refused: {0}")
  @MethodSource("refusedToTheWorker")
  void theRoleRefusesWhatTheWorkerMustNotDo(Access access) {
    assertThat(allowed(access)).as("%s", access).isFalse();
  }

  @Test
  void describeClusterRunsAsTheWorker() {
    ClusterDescription description = new ClusterActivitiesImpl(worker).describeCluster();
    assertThat(description.serverVersion()).isEqualTo("v1.37.2");
    assertThat(description.runtimeClassNvidia()).isTrue();
    assertThat(description.nodes()).extracting(n -> n.name()).contains("sim-h100-0", "sim-a100-0");
  }

  private static boolean allowed(Access access) {
    SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
        .withVerb(access.verb()).withGroup(access.group()).withResource(access.resource())
        .withSubresource(access.subresource()).withNamespace(access.namespace())
        .endResourceAttributes().endSpec().build();
    return worker.authorization().v1().selfSubjectAccessReview().create(review).getStatus().getAllowed();
  }
}
