package io.gshare.activities.cluster;

import io.gshare.workflows.common.FailureTypes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.SessionObjects;
import io.gshare.sim.SimSeed;
import io.gshare.sim.SimulatedCluster;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.PodState;
import io.gshare.workflows.session.SessionClusterActivities;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionVolume;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A session's objects against the simulated apiserver and kubelet, inside a Temporal activity context. */
class SessionClusterActivitiesImplTest {

  private SimulatedCluster sim;
  private KubernetesClient client;
  private TestActivityEnvironment env;
  private SessionClusterActivities activities;

  @BeforeEach
  void cluster() {
    sim = SimulatedCluster.start(new SimSeed("v1.36.0", List.of(new SimSeed.NodeSpec("gpu-1", "exclusive",
        new SimSeed.GpuSpec("NVIDIA H100 80GB HBM3", 2, 81559, null), Map.of())), null), SimulatedCluster.Options.defaults());
    client = sim.newClient();
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(new SessionClusterActivitiesImpl(client, Duration.ofMillis(200), Duration.ofSeconds(2)));
    activities = env.newActivityStub(SessionClusterActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1)).setHeartbeatTimeout(Duration.ofSeconds(10)).build());
  }

  @AfterEach
  void close() {
    env.close();
    client.close();
    sim.close();
  }

  private static SessionPod session(String id, SessionVolume volume) {
    return new SessionPod(id, "usr_1", new GpuPlacement("clu_1", "nod_1", "gpu-1", "exclusive", "NVIDIA H100 80GB HBM3",
        List.of("GPU-x"), null, null, false), "registry.example.com/jupyter:1", 8888, "/", "gshare.lab.example.com",
        "https://gshare.example.com/internal/connect/verify", null, volume);
  }

  @Test
  void startPodCreatesTheObjectsAndWaitsUntilRunningAndARetryFindsThem() {
    PodState first = activities.startPod(session("ses_s", null));
    PodState retried = activities.startPod(session("ses_s", null));
    assertThat(first.phase()).isEqualTo("Running");
    assertThat(retried.phase()).isEqualTo("Running");
    assertThat(client.pods().inNamespace(SessionObjects.NAMESPACE).list().getItems()).hasSize(1);
    assertThat(client.services().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-s").get()).isNotNull();
    assertThat(client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-s").get())
        .isNotNull();
  }

  @Test
  void onAGatewayApiClusterTheSessionGetsAnHttpRouteAndAnExtAuthPolicyInsteadOfAnIngress() {
    SessionPod base = session("ses_g", null);
    SessionPod gateway = new SessionPod(base.sessionId(), base.userId(), base.placement(), base.imageReference(),
        base.port(), base.path(), base.sessionDomain(), base.authUrl(), null, null,
        new io.gshare.workflows.session.SessionRoute(io.gshare.workflows.session.SessionRoute.Routing.GATEWAY_API,
            "envoy-gateway-system", "gshare"));
    assertThat(activities.startPod(gateway).phase()).isEqualTo("Running");

    assertThat(client.network().v1().ingresses().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-g").get())
        .isNull();
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
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
    activities.ensureObjects(session("ses_a", volume));
    activities.ensureObjects(session("ses_a", volume)); // a retried attempt finds what the first made

    PodState running = activities.awaitRunning("ses_a");
    assertThat(running.phase()).isEqualTo("Running");
    assertThat(running.hostname()).isEqualTo("gpu-1");
    assertThat(activities.podState("ses_a").phase()).isEqualTo("Running");
    assertThat(client.pods().inNamespace(SessionObjects.NAMESPACE).list().getItems()).hasSize(1);

    activities.deleteObjects("ses_a");
    assertThat(activities.podState("ses_a")).isNull();
    assertThat(client.services().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ses-a").get()).isNull();
    assertThat(client.persistentVolumeClaims().inNamespace(SessionObjects.NAMESPACE).withName("gshare-vol-9").get())
        .as("the volume's claim outlives the session").isNotNull();
  }

  @Test
  void aCheckpointImageIsBuiltOnceByAPodOnItsNodeWhichTheSessionsDeleteRemoves() {
    var checkpoint = new io.gshare.workflows.session.CheckpointImage("ses_c", "gpu-1",
        "/var/lib/kubelet/checkpoints/checkpoint-x.tar", "10.10.0.191:5000/ckpt/gshare-ses-c:ckpt-1",
        "registry.example.com/tools/buildah:1");

    assertThat(activities.buildCheckpointImage(checkpoint)).isEqualTo("10.10.0.191:5000/ckpt/gshare-ses-c:ckpt-1");
    var builder = client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-c").get();
    assertThat(builder.getSpec().getNodeName()).isEqualTo("gpu-1");
    assertThat(builder.getStatus().getPhase()).isEqualTo("Succeeded");

    // A retry after a lost answer: the archive is gone, the image pushed; the finished builder answers.
    assertThat(activities.buildCheckpointImage(checkpoint)).isEqualTo("10.10.0.191:5000/ckpt/gshare-ses-c:ckpt-1");
    assertThat(client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-c").get().getMetadata().getUid())
        .as("no second build").isEqualTo(builder.getMetadata().getUid());

    activities.deleteObjects("ses_c");
    assertThat(client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-c").get()).isNull();
  }

  @Test
  void aCheckpointImageThatCannotBeBuiltFailsForGood() {
    var checkpoint = new io.gshare.workflows.session.CheckpointImage("ses_d", "gpu-1",
        "/var/lib/kubelet/checkpoints/checkpoint-y.tar", "10.10.0.191:5000/ckpt/gshare-ses-d:ckpt-1",
        "registry.example.com/tools/buildah:1");
    sim.failPod(SessionObjects.NAMESPACE, "gshare-ckpt-ses-d", "Error"); // told before the pod exists

    assertThatThrownBy(() -> activities.buildCheckpointImage(checkpoint))
        .isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, failure ->
            assertThat(failure.getType()).isEqualTo("CheckpointImageFailed"));
    activities.deleteObjects("ses_d");
    assertThat(client.pods().inNamespace(SessionObjects.NAMESPACE).withName("gshare-ckpt-ses-d").get()).isNull();
  }

  @Test
  void aPodThatFailsEndsTheWaitForGood() {
    activities.ensureObjects(session("ses_b", null));
    sim.failPod(SessionObjects.NAMESPACE, "gshare-ses-b", "OOMKilled");

    assertThatThrownBy(() -> activities.awaitRunning("ses_b"))
        .isInstanceOf(ActivityFailure.class)
        .cause().isInstanceOfSatisfying(ApplicationFailure.class, failure -> {
          assertThat(failure.getType()).isEqualTo(FailureTypes.POD_FAILED);
          assertThat(failure.isNonRetryable()).isTrue();
        });
  }
}
