package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.SharedKubeCluster;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.sim.SimObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.FailureTypes;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.PodPhase;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionRoute;
import io.gshare.workflows.session.SessionVolume;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A session's objects on a real apiserver (the module's shared {@link KubeCluster}), the pods placed by the HAMi
 * scheduler stand-in and run by KWOK, inside a Temporal activity context. Each test's session has its own id and
 * its own card of this class's node, so the tests leave each other alone.
 */
class SessionClusterActivitiesImplTest {

  private static final String NODE = "session-h100-0";

  private static KubeCluster sim;
  private static KubernetesClient client;
  private TestActivityEnvironment env;
  private SessionClusterActivities activities;

  @BeforeAll
  static void cluster() {
    sim = SharedKubeCluster.get();
    SharedKubeCluster.addNodes(new SimSeed.NodeSpec(NODE, "exclusive",
        new SimSeed.GpuSpec("NVIDIA H100 80GB HBM3", 8, 81559, null), Map.of()));
    client = sim.newClient();
    for (SessionObjects.Kind kind : List.of(SessionObjects.HTTP_ROUTE, SessionObjects.SECURITY_POLICY,
        SessionObjects.BACKEND)) {
      installKind(kind);
    }
  }

  /**
   * The kinds a cluster with the Gateway API and Envoy Gateway serves, installed as their CRDs would be but with an
   * open schema (the real CRDs validate every field; this test reads back what the worker wrote).
   */
  private static void installKind(SessionObjects.Kind kind) {
    String name = kind.plural() + "." + kind.group();
    client.apiextensions().v1().customResourceDefinitions().resource(
        new CustomResourceDefinitionBuilder().withNewMetadata()
            .withName(name)
            // required of a *.k8s.io group; the Gateway API's CRDs carry this one
            .addToAnnotations("api-approved.kubernetes.io", "https://github.com/kubernetes-sigs/gateway-api/pull/2466")
            .endMetadata().withNewSpec().withGroup(kind.group()).withScope("Namespaced")
            .withNewNames().withKind(kind.kind()).withPlural(kind.plural()).endNames()
            .addNewVersion().withName(kind.version()).withServed(true).withStorage(true).withNewSchema()
            .withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true)
            .endOpenAPIV3Schema().endSchema().endVersion().endSpec().build())
        .fieldManager("activities-test").serverSideApply();
    client.apiextensions().v1().customResourceDefinitions().withName(name).waitUntilCondition(crd ->
        crd.getStatus() != null && crd.getStatus().getConditions() != null && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus())), 30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @BeforeEach
  void activities() {
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new SessionClusterActivitiesImpl(client, Duration.ofMillis(200), Duration.ofSeconds(2)));
    activities = env.newActivityStub(SessionClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10)).build());
  }

  @AfterEach
  void close() {
    env.close();
  }

  /** A session on its own card of the node: HAMi's stand-in refuses a card that is not the node's or is taken. */
  private static SessionPod session(String id, int card, SessionVolume volume) {
    return new SessionPod(id, "usr_1", new GpuPlacement("clu_1", "nod_1", NODE, "exclusive", "NVIDIA H100 80GB HBM3",
        List.of(SimObjects.gpuUuid(SharedKubeCluster.NAME, NODE, card)), null, null, false),
        "registry.example.com/jupyter:1", 8888, "/", "gshare.lab.example.com",
        "https://gshare.example.com/internal/connect/verify", null, volume);
  }

  /** This session's pods (the namespace is shared with the module's other tests). */
  private static List<Pod> podsOf(String sessionId) {
    return client.pods().inNamespace(SessionObjects.NAMESPACE).withLabel(LabelKeys.SESSION_ID, sessionId).list()
        .getItems();
  }

  @Test
  void startPodCreatesTheObjectsAndWaitsUntilRunningAndARetryFindsThem() {
    PodState first = activities.startPod(session("ses_s", 0, null));
    PodState retried = activities.startPod(session("ses_s", 0, null));
    assertThat(first.phase()).isEqualTo(PodPhase.RUNNING);
    assertThat(retried.phase()).isEqualTo(PodPhase.RUNNING);
    assertThat(podsOf("ses_s")).hasSize(1);
    assertThat(client.services().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-s").get()).isNotNull();
    assertThat(client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-s").get())
        .isNotNull();
  }

  @Test
  void onAGatewayApiClusterTheSessionGetsAnHttpRouteAndAnExtAuthPolicyInsteadOfAnIngress() {
    SessionPod base = session("ses_g", 1, null);
    SessionPod gateway = new SessionPod(base.sessionId(), base.userId(), base.placement(), base.imageReference(),
        base.port(), base.path(), base.sessionDomain(), base.authUrl(), null, null,
        new SessionRoute(SessionRoute.Routing.GATEWAY_API,
            "envoy-gateway-system", "gshare"));
    assertThat(activities.startPod(gateway).phase()).isEqualTo(PodPhase.RUNNING);

    assertThat(client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-g").get())
        .isNull();
    var json = new ObjectMapper();
    var route = json.valueToTree(client.genericKubernetesResources(SessionClusterActivitiesImpl.context(
        SessionObjects.HTTP_ROUTE)).inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-g").get()
        .getAdditionalProperties().get("spec"));
    assertThat(route.at("/parentRefs/0/name").asText()).isEqualTo("gshare");
    assertThat(route.at("/parentRefs/0/namespace").asText()).isEqualTo("envoy-gateway-system");
    assertThat(route.at("/hostnames/0").asText()).isEqualTo("gshare.lab.example.com");
    assertThat(route.at("/rules/0/matches/0/path/value").asText()).isEqualTo("/s/ses_g");
    assertThat(route.at("/rules/0/backendRefs/0/name").asText()).isEqualTo("gshare-ses-g");
    assertThat(route.at("/rules/0/backendRefs/0/port").asInt()).isEqualTo(8888);
    var policy = json.valueToTree(client.genericKubernetesResources(SessionClusterActivitiesImpl.context(
        SessionObjects.SECURITY_POLICY)).inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-g").get()
        .getAdditionalProperties().get("spec"));
    assertThat(policy.at("/targetRefs/0/kind").asText()).isEqualTo("HTTPRoute");
    assertThat(policy.at("/targetRefs/0/name").asText()).isEqualTo("gshare-ses-g");
    assertThat(policy.at("/extAuth/http/path").asText()).isEqualTo("/internal/connect/verify");
    assertThat(policy.at("/extAuth/http/backendRefs/0/name").asText()).isEqualTo(SessionObjects.AUTH_BACKEND);
    assertThat(policy.at("/extAuth/headersToExtAuth").toString()).contains("cookie", "authorization");
    var backend = json.valueToTree(client.genericKubernetesResources(SessionClusterActivitiesImpl.context(
        SessionObjects.BACKEND)).inNamespace(SessionObjects.NAMESPACE).withName(SessionObjects.AUTH_BACKEND).get()
        .getAdditionalProperties().get("spec"));
    assertThat(backend.at("/endpoints/0/fqdn/hostname").asText()).isEqualTo("gshare.example.com");
    assertThat(backend.at("/endpoints/0/fqdn/port").asInt()).isEqualTo(443);

    activities.deleteObjects("ses_g");
    assertThat(client.genericKubernetesResources(SessionClusterActivitiesImpl.context(SessionObjects.HTTP_ROUTE)).inNamespace(SessionObjects.NAMESPACE)
        .withName("gshare-ses-g").get()).isNull();
    assertThat(client.genericKubernetesResources(SessionClusterActivitiesImpl.context(SessionObjects.SECURITY_POLICY)).inNamespace(SessionObjects.NAMESPACE)
        .withName("gshare-ses-g").get()).isNull();
    assertThat(client.genericKubernetesResources(SessionClusterActivitiesImpl.context(SessionObjects.BACKEND)).inNamespace(SessionObjects.NAMESPACE)
        .withName(SessionObjects.AUTH_BACKEND).get()).as("shared by the cluster's sessions").isNotNull();
  }

  @Test
  void aSessionIsCreatedOnceWatchedUntilItRunsAndDeletedWithoutItsClaim() {
    SessionVolume volume = new SessionVolume("vol_9", SessionVolume.claimNameOf("vol_9"), null, 5, SessionVolume.MOUNT_PATH);
    activities.ensureObjects(session("ses_a", 2, volume));
    activities.ensureObjects(session("ses_a", 2, volume)); // a retried attempt finds what the first made

    PodState running = activities.awaitRunning("ses_a");
    assertThat(running.phase()).isEqualTo(PodPhase.RUNNING);
    assertThat(running.hostname()).isEqualTo(NODE);
    assertThat(activities.podState("ses_a").phase()).isEqualTo(PodPhase.RUNNING);
    assertThat(podsOf("ses_a")).hasSize(1);

    activities.deleteObjects("ses_a");
    assertThat(activities.podState("ses_a")).isNull();
    assertThat(client.services().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-a").get()).isNull();
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-9").get())
        .as("the volume's claim outlives the session").isNotNull();
  }

  @Test
  void aCheckpointImageIsBuiltOnceByAPodOnItsNodeWhichTheSessionsDeleteRemoves() {
    var checkpoint = new CheckpointImage("ses_c", NODE,
        "/var/lib/kubelet/checkpoints/checkpoint-x.tar", "10.10.0.191:5000/ckpt/gshare-ses-c:ckpt-1",
        "registry.example.com/tools/buildah:1");

    assertThat(activities.buildCheckpointImage(checkpoint)).isEqualTo("10.10.0.191:5000/ckpt/gshare-ses-c:ckpt-1");
    var builder = client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-c").get();
    assertThat(builder.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(builder.getStatus().getPhase()).isEqualTo("Succeeded");

    // A retry after a lost answer: the archive is gone, the image pushed; the finished builder answers.
    assertThat(activities.buildCheckpointImage(checkpoint)).isEqualTo("10.10.0.191:5000/ckpt/gshare-ses-c:ckpt-1");
    assertThat(client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-c").get().getMetadata().getUid())
        .as("no second build").isEqualTo(builder.getMetadata().getUid());

    activities.deleteObjects("ses_c");
    // Deleted with the session's pod; a real apiserver deletes it gracefully, so it may take a moment to go.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(client.pods()
        .inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-c").get()).isNull());
  }

  @Test
  void aCheckpointImageThatCannotBeBuiltFailsForGood() {
    var checkpoint = new CheckpointImage("ses_d", NODE,
        "/var/lib/kubelet/checkpoints/checkpoint-y.tar", "10.10.0.191:5000/ckpt/gshare-ses-d:ckpt-1",
        "registry.example.com/tools/buildah:1");
    sim.failPod(SessionObjects.NAMESPACE, "gshare-ckpt-ses-d", "Error"); // told before the pod exists

    assertThatThrownBy(() -> activities.buildCheckpointImage(checkpoint))
        .isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, failure ->
            assertThat(failure.getType()).isEqualTo("CheckpointImageFailed"));
    activities.deleteObjects("ses_d");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(client.pods()
        .inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-d").get()).isNull());
  }

  @Test
  void aPodThatFailsEndsTheWaitForGood() {
    activities.ensureObjects(session("ses_b", 3, null));
    sim.failPod(SessionObjects.NAMESPACE, "gshare-ses-b", "OOMKilled");
    // KWOK starts the pod at once and the runtime stand-in fails it on its next pass: the wait starts after that.
    await().atMost(Duration.ofSeconds(30)).until(() -> "Failed".equals(client.pods().inNamespace(SessionObjects.NAMESPACE)
        .withName("gshare-ses-b").get().getStatus().getPhase()));

    assertThatThrownBy(() -> activities.awaitRunning("ses_b"))
        .isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, failure -> {
          assertThat(failure.getType()).isEqualTo(FailureTypes.POD_FAILED);
          assertThat(failure.isNonRetryable()).isTrue();
        });
  }
}
