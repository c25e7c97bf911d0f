package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.control.MeteringActivitiesImpl;
import io.gshare.activities.control.WorkerDeployer;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.HistoryRecorder;
import io.gshare.api.support.NewTestIds;
import io.gshare.api.support.TemporalDevServerSupport;
import io.gshare.client.ApiProblemException;
import io.gshare.client.ApiResponse;
import io.gshare.client.GshareClient;
import io.gshare.client.catalogue.Catalogue;
import io.gshare.client.cluster.Cluster;
import io.gshare.core.credit.BillingWindows;
import io.gshare.core.credit.CreditLedger;
import io.gshare.localdeployer.LocalProcessWorkerDeployer;
import io.gshare.sim.SimSeed;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.session.MeteringWorkflow;
import io.gshare.workflows.session.SessionRecoveryPass;
import io.gshare.workflows.session.SessionRecoveryWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Sessions end to end on the dev runtime's parts: real PostgreSQL, the embedded Temporal server, a
 * real Kubernetes with KWOK GPU nodes (KubeCluster) attached by the attach workflow, and its real cluster-worker process.
 */
class SessionLifecycleIT extends ApiIntegrationTest {

  static final String SLICE_MODEL = "NVIDIA A100-SXM4-40GB";
  static final String LOSSLESS_MODEL = "NVIDIA H200";
  static final String WHOLE_MODEL = "NVIDIA H100 80GB HBM3";
  static final String REGISTRY = "10.10.0.191:5000/gshare-checkpoints";

  private static KubeCluster sim;
  private static String clusterId;
  private static String domain;
  private static String sliceOffering;
  private static String losslessOffering;
  private static String wholeOffering;
  private static String image;

  @Autowired ObjectMapper json;
  @Autowired CreditLedger ledger;
  @Autowired BillingWindows billing;
  @Autowired WorkerDeployer deployer;
  @Autowired WorkflowClient workflows;
  @Autowired ScheduleClient schedules;
  private String admin;

  @BeforeEach
  void oneAttachedCluster() throws Exception {
    admin = adminToken();
    if (sim != null) {
      return;
    }
    SimSeed seed = new SimSeed("v1.37.2", List.of(
        new SimSeed.NodeSpec("a100-0", "fractional", new SimSeed.GpuSpec(SLICE_MODEL, 2, 40960, 10), Map.of()),
        new SimSeed.NodeSpec("h200-0", "exclusive", new SimSeed.GpuSpec(LOSSLESS_MODEL, 2, 143771, null),
            Map.of("gshare.io/criu", "ready", "gshare.io/cuda-checkpoint", "ready")),
        new SimSeed.NodeSpec("h100-0", "exclusive", new SimSeed.GpuSpec(WHOLE_MODEL, 4, 81559, null), Map.of()),
        new SimSeed.NodeSpec("h100-1", "exclusive", new SimSeed.GpuSpec(WHOLE_MODEL, 4, 81559, null), Map.of()),
        new SimSeed.NodeSpec("h100-2", "exclusive", new SimSeed.GpuSpec(WHOLE_MODEL, 4, 81559, null), Map.of())), null,
        // The class the volume test's pool names: the worker's volume sync reports it present here.
        List.of(new SimSeed.StorageClassSpec("gshare-data", "org.democratic-csi.gshare-nfs", true, "Delete", "Immediate",
            false, List.of())));
    sim = startCluster(seed, "sessions");
    domain = "gshare." + NewTestIds.next("lab").replace('_', '-') + ".example.com";
    String kubeconfig = Files.readString(sim.writeKubeconfig(Files.createTempFile("sessions", ".kubeconfig")));
    GshareClient asAdmin = api(admin);
    Cluster.Accepted accepted = asAdmin.clusters().register(new Cluster.NewCluster(
        NewTestIds.next("sessions").replace('_', '-'), kubeconfig, domain, null, REGISTRY, null));
    clusterId = accepted.cluster().id();
    String operation = accepted.operation().id();
    await().atMost(Duration.ofSeconds(180)).ignoreExceptionsInstanceOf(ApiProblemException.class)
        .until(() -> "completed".equals(asAdmin.operations().get(operation).status()));
    sliceOffering = offering("{\"name\":\"%s\",\"gpu_model\":\"" + SLICE_MODEL
        + "\",\"mode\":\"fractional\",\"gpumem_mib\":10240,\"gpucores_percent\":25,\"price_per_hour\":6}");
    losslessOffering = offering("{\"name\":\"%s\",\"gpu_model\":\"" + LOSSLESS_MODEL
        + "\",\"mode\":\"exclusive\",\"gpu_count\":1,\"price_per_hour\":8}");
    wholeOffering = offering("{\"name\":\"%s\",\"gpu_model\":\"" + WHOLE_MODEL
        + "\",\"mode\":\"exclusive\",\"gpu_count\":1,\"price_per_hour\":4}");
    image = asAdmin.catalogue().createImage(new Catalogue.NewImage(NewTestIds.next("jupyter"),
        "registry.example.com/gshare/jupyter:2026.11", null, null, null, null)).id();
  }

  private String offering(String template) throws Exception {
    ApiResponse created = post("/api/v1/offerings", template.formatted(NewTestIds.next("off")), admin);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return json.readTree(created.text()).get("id").asText();
  }

  private String userWithCredits(String amount) {
    String user = newUser("user");
    ledger.grant(user, new BigDecimal(amount), NewTestIds.next("g"), "test", null);
    return user;
  }

  private ApiResponse create(String token, String offering) {
    return post("/api/v1/sessions", "{\"offering_id\":\"" + offering + "\",\"image_id\":\"" + image + "\"}", token);
  }

  private JsonNode session(String id) throws Exception {
    return json.readTree(get("/api/v1/sessions/" + id, admin).text());
  }

  private JsonNode awaitState(String id, String state) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      last[0] = session(id);
      assertThat(last[0].at("/session/state").asText()).as(last[0].toString()).isEqualTo(state);
    });
    return last[0];
  }

  private List<Pod> podsOf(String sessionId) {
    try (KubernetesClient k8s = sim.newClient()) {
      return k8s.pods().inNamespace("gshare-sessions").withLabel("gshare.io/session-id", sessionId).list().getItems();
    }
  }

  private int liveAllocations(String sessionId) {
    return jdbc.sql("select count(*) from allocations where session_id = :s and released_at is null").param("s", sessionId)
        .query(Integer.class).single();
  }

  @Test
  void aSessionRunsAtItsUrlPausesColdResumesAndEndsSettled() throws Exception {
    String token = tokenFor(userWithCredits("100"));
    ApiResponse created = create(token, sliceOffering);
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    String id = json.readTree(created.text()).at("/session/id").asText();

    JsonNode running = awaitState(id, "running");
    assertThat(URI.create(running.at("/session/url").asText()).getHost()).isEqualTo(domain);
    assertThat(running.at("/session/url").asText()).endsWith("/s/" + id + "/");
    assertThat(running.get("gpus")).hasSize(1);
    Pod pod = podsOf(id).get(0);
    assertThat(pod.getMetadata().getAnnotations()).containsKey("nvidia.com/use-gpuuuid");
    assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(pod.getSpec().getContainers().get(0).getResources().getLimits()).containsKeys("nvidia.com/gpumem", "nvidia.com/gpucores");
    try (KubernetesClient k8s = sim.newClient()) {
      var ingress = k8s.network().v1().ingresses().inNamespace("gshare-sessions").withName(KubeNames.of("gshare", id)).get();
      assertThat(ingress.getSpec().getRules().get(0).getHost()).isEqualTo(domain);
      assertThat(ingress.getMetadata().getAnnotations().get("nginx.ingress.kubernetes.io/auth-url")).endsWith("/internal/connect/verify");
    }

    // A minute and a half of running: the pause charges one full minute and settles the half.
    jdbc.sql("""
        update billing_windows set opened_at = opened_at - interval '90 seconds',
               charged_through = charged_through - interval '90 seconds' where session_id = :s and closed_at is null
        """).param("s", id).update();
    ApiResponse paused = post("/api/v1/sessions/" + id + "/pause", "{}", token);
    assertThat(paused.status()).as(paused.text()).isEqualTo(200);
    JsonNode view = json.readTree(paused.text());
    assertThat(view.at("/session/state").asText()).isEqualTo("paused");
    assertThat(view.at("/session/pause_kind").asText()).isEqualTo("cold");
    await().atMost(Duration.ofSeconds(10)).until(() -> podsOf(id).isEmpty());
    assertThat(liveAllocations(id)).isZero();
    assertThat(jdbc.sql("select count(*) from billing_windows where session_id = :s and closed_at is null").param("s", id)
        .query(Integer.class).single()).isZero();

    ApiResponse resumed = post("/api/v1/sessions/" + id + "/resume", "{}", token);
    assertThat(resumed.status()).as(resumed.text()).isEqualTo(200);
    assertThat(json.readTree(resumed.text()).at("/session/state").asText()).isEqualTo("running");
    assertThat(podsOf(id)).hasSize(1);
    assertThat(liveAllocations(id)).isEqualTo(1);

    ApiResponse ended = send("DELETE", "/api/v1/sessions/" + id, null, token);
    assertThat(ended.status()).as(ended.text()).isEqualTo(200);
    assertThat(json.readTree(ended.text()).at("/session/state").asText()).isEqualTo("terminated");
    await().atMost(Duration.ofSeconds(10)).until(() -> podsOf(id).isEmpty());
    assertThat(liveAllocations(id)).isZero();
    assertThat(jdbc.sql("select count(*) from credit_ledger where session_id = :s and kind = 'charge'").param("s", id)
        .query(Integer.class).single()).isEqualTo(1);
    assertThat(jdbc.sql("select count(*) from credit_ledger where session_id = :s and kind = 'settlement'").param("s", id)
        .query(Integer.class).single()).isBetween(1, 2); // the half minute; the second window may be too short to bill
    assertThat(jdbc.sql("select count(*) from billing_windows where session_id = :s and closed_at is not null").param("s", id)
        .query(Integer.class).single()).isEqualTo(2);
    assertThat(send("DELETE", "/api/v1/sessions/" + id, null, token).status()).isEqualTo(200); // idempotent
    assertThat(post("/api/v1/sessions/" + id + "/resume", "{}", token).status()).isEqualTo(409);
    assertThat(session(id).at("/session/ended_at").isMissingNode()).isFalse();

    // Traced: the session's workflow is found in Temporal visibility by GshareSessionId, by its owner
    // too, and its link opens in the Temporal Web UI; the cluster's attach is found by GshareClusterId.
    JsonNode traced = awaitOperations("session", id, token, "session-" + id);
    assertThat(traced.path("source").asText()).isEqualTo("temporal_visibility");
    JsonNode run = traced.at("/items/0");
    assertThat(run.path("type").asText()).isEqualTo("Session");
    assertThat(run.path("status").asText()).isEqualTo("completed");
    assertUiOpens(run.path("temporal_ui_url").asText(), "session-" + id);
    JsonNode attach = awaitOperations("cluster", clusterId, admin, "cluster-attach-" + clusterId);
    assertUiOpens(json.readTree(get("/api/v1/operations/cluster-attach-" + clusterId, admin).text())
        .path("temporal_ui_url").asText(), "cluster-attach-" + clusterId);
    assertThat(attach.path("items")).extracting(i -> i.path("type").asText()).contains("ClusterAttach");
    String stranger = tokenFor(newUser("user"));
    assertThat(get("/api/v1/operations?object_kind=session&object_id=" + id, stranger).status()).isEqualTo(404);
    assertThat(get("/api/v1/operations?object_kind=cluster&object_id=" + clusterId, stranger).status()).isEqualTo(403);
    ApiResponse badKind = get("/api/v1/operations?object_kind=galaxy&object_id=" + id, admin);
    assertThat(badKind.status()).isEqualTo(422);
    assertThat(badKind.text()).contains("cluster, session, user, node, volume");
    assertThat(get("/api/v1/operations?object_kind=session&object_id=x'%20or%20'1'='1", admin).status()).isEqualTo(422);

    HistoryRecorder.record(workflows, "session-" + id, "session-lifecycle");
    HistoryRecorder.record(workflows, "cluster-attach-" + clusterId, "cluster-attach");
  }

  /** Lists the operations on an object until the one named is there (visibility is updated asynchronously). */
  private JsonNode awaitOperations(String kind, String objectId, String token, String workflowId) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      ApiResponse listed = get("/api/v1/operations?object_kind=" + kind + "&object_id=" + objectId, token);
      assertThat(listed.status()).as(listed.text()).isEqualTo(200);
      last[0] = json.readTree(listed.text());
      assertThat(last[0].path("items")).extracting(i -> i.path("id").asText()).contains(workflowId);
    });
    return last[0];
  }

  private void assertUiOpens(String link, String workflowId) throws Exception {
    assertThat(link).startsWith(TemporalDevServerSupport.uiUrl() + "/namespaces/default/workflows/" + workflowId);
    TemporalDevServerSupport.UiPage page = TemporalDevServerSupport.uiPage(link);
    assertThat(page.status()).as(link).isEqualTo(200);
    assertThat(page.body()).contains("<html");
  }

  @Test
  void aSessionMountsItsVolumeWhichOutlivesPausesAndServesOneSessionAtATime() throws Exception {
    String user = userWithCredits("100");
    String token = tokenFor(user);
    // Volumes have no API of their own yet: a row as the volume API will write it, on a pool any cluster mounts.
    String pool = NewTestIds.next("sp");
    jdbc.sql("insert into storage_pools (id, name, storage_class) values (:p, :p, 'gshare-data')").param("p", pool).update();
    String volume = NewTestIds.next("vol");
    jdbc.sql("insert into volumes (id, owner_id, name, storage_pool_id, size_gb) values (:v, :u, :n, :p, 20)")
        .param("v", volume).param("u", user).param("n", volume.replace('_', '-')).param("p", pool).update();
    String claim = KubeNames.of("gshare", volume);
    String body = "{\"offering_id\":\"" + sliceOffering + "\",\"image_id\":\"" + image + "\",\"volume_id\":\"" + volume + "\"}";

    ApiResponse created = post("/api/v1/sessions", body, token);
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    String id = json.readTree(created.text()).at("/session/id").asText();
    JsonNode running = awaitState(id, "running");
    assertThat(running.at("/session/volume_id").asText()).isEqualTo(volume);
    assertThat(podsOf(id).get(0).getSpec().getVolumes()).anySatisfy(v ->
        assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo(claim));
    try (KubernetesClient k8s = sim.newClient()) {
      var pvc = k8s.persistentVolumeClaims().inNamespace("gshare-sessions").withName(claim).get();
      assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("gshare-data");
      assertThat(pvc.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("20Gi");
    }
    assertThat(jdbc.sql("select pvc_name from volume_claims where volume_id = :v and cluster_id = :c").param("v", volume)
        .param("c", clusterId).query(String.class).single()).isEqualTo(claim);

    // One session at a time, paused or not: the second is refused and writes nothing.
    ApiResponse second = post("/api/v1/sessions", body, token);
    assertThat(second.status()).as(second.text()).isEqualTo(409);
    assertThat(json.readTree(second.text()).get("code").asText()).isEqualTo("volume_in_use");
    assertThat(json.readTree(second.text()).get("detail").asText()).contains(id);
    assertThat(post("/api/v1/sessions/" + id + "/pause", "{}", token).status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> podsOf(id).isEmpty());
    assertThat(post("/api/v1/sessions", body, token).status()).isEqualTo(409);
    assertThat(jdbc.sql("select count(*) from sessions where volume_id = :v").param("v", volume).query(Integer.class).single())
        .isEqualTo(1);

    // The claim (and so the files) outlive the pause and the session.
    assertThat(post("/api/v1/sessions/" + id + "/resume", "{}", token).status()).isEqualTo(200);
    assertThat(podsOf(id).get(0).getSpec().getVolumes()).anySatisfy(v ->
        assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo(claim));
    assertThat(send("DELETE", "/api/v1/sessions/" + id, null, token).status()).isEqualTo(200);
    try (KubernetesClient k8s = sim.newClient()) {
      assertThat(k8s.persistentVolumeClaims().inNamespace("gshare-sessions").withName(claim).get()).isNotNull();
    }
    ApiResponse next = post("/api/v1/sessions", body, token);
    assertThat(next.status()).as(next.text()).isEqualTo(202);
    String nextId = json.readTree(next.text()).at("/session/id").asText();
    awaitState(nextId, "running");
    assertThat(send("DELETE", "/api/v1/sessions/" + nextId, null, token).status()).isEqualTo(200);

    // Someone else's volume is not theirs to mount.
    ApiResponse stranger = post("/api/v1/sessions", body, tokenFor(userWithCredits("100")));
    assertThat(stranger.status()).as(stranger.text()).isEqualTo(404);
  }

  @Test
  void aSessionCreatedWithAClusterIdRunsOnThatCluster() throws Exception {
    String token = tokenFor(userWithCredits("50"));
    ApiResponse created = post("/api/v1/sessions", """
        {"offering_id":"%s","image_id":"%s","cluster_id":"%s"}""".formatted(wholeOffering, image, clusterId), token);
    assertThat(created.status()).as(created.text()).isEqualTo(202);
    String id = json.readTree(created.text()).at("/session/id").asText();
    JsonNode running = awaitState(id, "running");
    assertThat(running.at("/session/cluster_id").asText()).isEqualTo(clusterId);
    ApiResponse ended = send("DELETE", "/api/v1/sessions/" + id, null, token);
    assertThat(ended.status()).as(ended.text()).isEqualTo(200);
    assertThat(json.readTree(ended.text()).at("/session/state").asText()).isEqualTo("terminated");
  }

  @Test
  void aNewSessionDomainMovesLiveSessionsAsAnOperation() throws Exception {
    String token = tokenFor(userWithCredits("50"));
    String running = json.readTree(create(token, wholeOffering).text()).at("/session/id").asText();
    String paused = json.readTree(create(token, wholeOffering).text()).at("/session/id").asText();
    awaitState(running, "running");
    awaitState(paused, "running");
    assertThat(post("/api/v1/sessions/" + paused + "/pause", "{}", token).status()).isEqualTo(200);
    awaitState(paused, "paused");

    String moved = "gshare." + NewTestIds.next("moved").replace('_', '-') + ".example.com";
    try {
      ApiResponse patched = send("PATCH", "/api/v1/clusters/" + clusterId,
          "{\"session_domain\":\"" + moved + "\"}", admin);
      assertThat(patched.status()).as(patched.text()).isEqualTo(200);
      JsonNode operation = awaitOperation(WorkflowIds.clusterReroute(clusterId));
      assertThat(operation.get("status").asText()).as(operation.toString()).isEqualTo("completed");
      assertThat(operation.toString()).contains("move session " + running).contains("moved to https://" + moved)
          .contains("move session " + paused).contains("when resumed");

      JsonNode view = session(running);
      assertThat(view.at("/session/url").asText()).isEqualTo("https://" + moved + "/s/" + running + "/");
      assertThat(view.at("/session/state").asText()).isEqualTo("running");
      assertThat(podsOf(running)).hasSize(1); // the pod was not touched
      try (KubernetesClient k8s = sim.newClient()) {
        var ingress = k8s.network().v1().ingresses().inNamespace("gshare-sessions")
            .withName(KubeNames.of("gshare", running)).get();
        assertThat(ingress.getSpec().getRules().get(0).getHost()).isEqualTo(moved);
      }
      // The paused one resumes on the new domain.
      assertThat(post("/api/v1/sessions/" + paused + "/resume", "{}", token).status()).isEqualTo(200);
      assertThat(awaitState(paused, "running").at("/session/url").asText())
          .isEqualTo("https://" + moved + "/s/" + paused + "/");
      HistoryRecorder.record(workflows, WorkflowIds.clusterReroute(clusterId), "cluster-reroute");
    } finally {
      send("DELETE", "/api/v1/sessions/" + running, null, token);
      send("DELETE", "/api/v1/sessions/" + paused, null, token);
      awaitState(running, "terminated");
      awaitState(paused, "terminated");
      // A session that took a reroute while running, then ended: its history must replay.
      HistoryRecorder.record(workflows, WorkflowIds.session(running), "session-rerouted");
      // The other tests of this class expect the cluster's first domain.
      assertThat(send("PATCH", "/api/v1/clusters/" + clusterId, "{\"session_domain\":\"" + domain + "\"}", admin)
          .status()).isEqualTo(200);
      awaitOperation(WorkflowIds.clusterReroute(clusterId));
    }
  }

  /** The operation once it has ended (completed or failed). */
  private JsonNode awaitOperation(String id) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      last[0] = json.readTree(get("/api/v1/operations/" + id, admin).text());
      assertThat(last[0].path("status").asText()).as(last[0].toString()).isIn("completed", "failed");
    });
    return last[0];
  }

  @Test
  void aPodLostBehindGshareBackPausesTheSessionAndStopsItsBilling() throws Exception {
    String token = tokenFor(userWithCredits("100"));
    String id = json.readTree(create(token, sliceOffering).text()).at("/session/id").asText();
    awaitState(id, "running");

    // As a node failure or a kubectl delete would: the pod vanishes, nobody tells gShare.
    try (KubernetesClient k8s = sim.newClient()) {
      k8s.pods().inNamespace("gshare-sessions").withName(KubeNames.of("gshare", id)).delete();
    }

    // The worker's next status report misses it; the workflow checks with the cluster and pauses.
    JsonNode paused = awaitState(id, "paused");
    assertThat(paused.at("/session/state_reason").asText()).contains("the pod is gone").contains("resume to start it again");
    assertThat(paused.at("/session/pause_kind").asText()).isEqualTo("cold");
    assertThat(liveAllocations(id)).isZero();
    assertThat(jdbc.sql("select count(*) from billing_windows where session_id = :s and closed_at is null").param("s", id)
        .query(Integer.class).single()).isZero();

    ApiResponse resumed = post("/api/v1/sessions/" + id + "/resume", "{}", token);
    assertThat(resumed.status()).as(resumed.text()).isEqualTo(200);
    assertThat(podsOf(id)).hasSize(1);
    send("DELETE", "/api/v1/sessions/" + id, null, token);
  }

  @Test
  void aClustersCheckpointRegistryIsValidatedAndCanBeRemoved() throws Exception {
    for (String bad : List.of("https://10.10.0.191:5000/ckpt", "10.10.0.191:5000/ckpt:latest", "Registry.Example.com")) {
      ApiResponse refused = send("PATCH", "/api/v1/clusters/" + clusterId, "{\"checkpoint_registry\":\"" + bad + "\"}", admin);
      assertThat(refused.status()).as(bad).isEqualTo(422);
    }
    assertThat(json.readTree(get("/api/v1/clusters/" + clusterId, admin).text()).get("checkpoint_registry").asText())
        .isEqualTo(REGISTRY);
    ApiResponse removed = send("PATCH", "/api/v1/clusters/" + clusterId, "{\"checkpoint_registry\":\"\"}", admin);
    assertThat(removed.status()).as(removed.text()).isEqualTo(200);
    assertThat(json.readTree(removed.text()).path("checkpoint_registry").isNull()
        || json.readTree(removed.text()).path("checkpoint_registry").isMissingNode()).isTrue();
    ApiResponse restored = send("PATCH", "/api/v1/clusters/" + clusterId,
        "{\"checkpoint_registry\":\"" + REGISTRY + "\"}", admin);
    assertThat(json.readTree(restored.text()).get("checkpoint_registry").asText()).isEqualTo(REGISTRY);
  }

  @Test
  void aNodeWithCriuAndCudaCheckpointPausesLosslessly() throws Exception {
    String token = tokenFor(userWithCredits("100"));
    String id = json.readTree(create(token, losslessOffering).text()).at("/session/id").asText();
    awaitState(id, "running");
    int before = sim.checkpointsTaken();

    JsonNode paused = json.readTree(post("/api/v1/sessions/" + id + "/pause", "{}", token).text());
    assertThat(paused.at("/session/pause_kind").asText()).isEqualTo("lossless");
    assertThat(sim.checkpointsTaken()).isEqualTo(before + 1);
    String checkpointImage = jdbc.sql("select checkpoint_image from sessions where id = :id").param("id", id)
        .query(String.class).single();
    assertThat(checkpointImage).startsWith(REGISTRY + "/gshare-" + id.replace('_', '-') + ":ckpt-");
    try (KubernetesClient k8s = sim.newClient()) {
      assertThat(k8s.pods().inNamespace("gshare-sessions").withLabel("gshare.io/checkpoint-of", id).list().getItems())
          .as("the builder pod goes with the session's pod once the image is pushed").isEmpty();
    }
    assertThat(session(id).toString()).contains("lossless: " + checkpointImage);

    json.readTree(post("/api/v1/sessions/" + id + "/resume", "{}", token).text());
    Pod restored = podsOf(id).get(0);
    assertThat(restored.getSpec().getContainers().get(0).getImage()).as("restored from the checkpoint image")
        .isEqualTo(checkpointImage);
    assertThat(restored.getMetadata().getAnnotations()).containsEntry("gshare.io/restore-from-checkpoint", checkpointImage)
        .containsEntry("gshare.io/image", "registry.example.com/gshare/jupyter:2026.11");
    assertThat(restored.getSpec().getNodeSelector()).containsEntry("kubernetes.io/hostname", "h200-0");
    assertThat(send("DELETE", "/api/v1/sessions/" + id, null, token).status()).isEqualTo(200);
    HistoryRecorder.record(workflows, "session-" + id, "session-lossless-pause");
  }

  @Test
  void thirtyConcurrentCreatesForTwelveGpusRunExactlyTwelve() throws Exception {
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      tokens.add(tokenFor(userWithCredits("100")));
    }
    ExecutorService pool = Executors.newFixedThreadPool(10);
    List<Future<ApiResponse>> answers = new ArrayList<>();
    for (String token : tokens) {
      answers.add(pool.submit(() -> create(token, wholeOffering)));
    }
    List<String> accepted = new ArrayList<>();
    int refused = 0;
    for (Future<ApiResponse> answer : answers) {
      ApiResponse response = answer.get();
      if (response.status() == 202) {
        accepted.add(json.readTree(response.text()).at("/session/id").asText());
      } else {
        assertThat(response.status()).as(response.text()).isEqualTo(409);
        assertThat(json.readTree(response.text()).get("code").asText()).isEqualTo("insufficient_capacity");
        refused++;
      }
    }
    pool.shutdown();
    assertThat(accepted).hasSize(12);
    assertThat(refused).isEqualTo(18);
    for (String id : accepted) {
      awaitState(id, "running");
    }
    int pods = 0;
    for (String id : accepted) {
      pods += podsOf(id).size();
    }
    assertThat(pods).isEqualTo(12);
    assertThat(jdbc.sql("""
        select count(*) from allocations a join gpu_devices g on g.uuid = a.gpu_uuid
         where g.model = :m and a.released_at is null
        """).param("m", WHOLE_MODEL).query(Integer.class).single()).isEqualTo(12);
    for (String id : accepted) {
      assertThat(send("DELETE", "/api/v1/sessions/" + id, null, admin).status()).isEqualTo(200);
    }
  }

  @Test
  void aMeteringSweepRunTwiceChargesOnceAndRunningOutOfCreditsPauses() throws Exception {
    String user = userWithCredits("1");   // 6 credits/h: 0.1 per minute, 10 minutes' worth
    String token = tokenFor(user);
    String id = json.readTree(create(token, sliceOffering).text()).at("/session/id").asText();
    awaitState(id, "running");
    // Pretend the window opened 12 minutes ago.
    jdbc.sql("""
        update billing_windows set opened_at = opened_at - interval '12 minutes',
               charged_through = charged_through - interval '12 minutes' where session_id = :s and closed_at is null
        """).param("s", id).update();

    MeteringActivitiesImpl metering = new MeteringActivitiesImpl(billing, Clock.systemUTC());
    assertThat(metering.chargeOpenWindows(500).charged()).isGreaterThanOrEqualTo(12);
    assertThat(metering.chargeOpenWindows(500).charged()).isZero();
    assertThat(jdbc.sql("select count(*) from credit_ledger where session_id = :s and kind = 'charge'").param("s", id)
        .query(Integer.class).single()).isEqualTo(12);

    // The real sweep workflow, once: it finds the balance gone and tells the session to pause.
    MeteringWorkflow sweep = workflows.newWorkflowStub(MeteringWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId("metering-test-" + id).setTaskQueue(TaskQueues.CONTROL).build());
    sweep.sweep();
    JsonNode paused = awaitState(id, "paused");
    assertThat(paused.at("/session/state_reason").asText()).isEqualTo("credits exhausted");
    assertThat(new BigDecimal(paused.get("cost_so_far").asText())).isGreaterThanOrEqualTo(new BigDecimal("1.2"));
    send("DELETE", "/api/v1/sessions/" + id, null, token);
  }

  @Test
  void aWorkerKilledMidCreateStillRunsTheSessionExactlyOnce() throws Exception {
    String token = tokenFor(userWithCredits("100"));
    LocalProcessWorkerDeployer local = (LocalProcessWorkerDeployer) deployer;
    Process worker = local.process(clusterId);
    String id = json.readTree(create(token, sliceOffering).text()).at("/session/id").asText();
    worker.destroyForcibly();

    awaitState(id, "running");
    assertThat(local.process(clusterId).pid()).isNotEqualTo(worker.pid());
    assertThat(podsOf(id)).hasSize(1);
    assertThat(liveAllocations(id)).isEqualTo(1);
    send("DELETE", "/api/v1/sessions/" + id, null, token);
  }

  @Test
  void sessionRecoveryIsATemporalScheduleEveryRetryInterval() {
    ScheduleDescription recovery = schedules.getHandle(WorkflowIds.SESSION_RECOVERY).describe();
    assertThat(recovery.getSchedule().getSpec().getIntervals()).extracting(ScheduleIntervalSpec::getEvery)
        .containsExactly(Duration.ofSeconds(60));
    assertThat(((ScheduleActionStartWorkflow) recovery.getSchedule().getAction()).getWorkflowType())
        .isEqualTo("SessionRecovery");
    // Triggered once at the api's start, besides its ticks.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
        schedules.getHandle(WorkflowIds.SESSION_RECOVERY).describe().getInfo().getNumActions()).isPositive());
  }

  @Test
  void aSessionWhoseWorkflowTemporalLostIsRecoveredFromPostgres() throws Exception {
    String token = tokenFor(userWithCredits("100"));
    String id = json.readTree(create(token, sliceOffering).text()).at("/session/id").asText();
    awaitState(id, "running");
    // As if the embedded server restarted: the execution is gone, Postgres still says running.
    workflows.newUntypedWorkflowStub(WorkflowIds.session(id)).terminate("simulated loss of the Temporal server");

    // A recovery pass as the Schedule session-recovery runs it (one started now, so it reads the row after the loss).
    SessionRecoveryPass pass = workflows.newWorkflowStub(SessionRecoveryWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId("session-recovery-test-" + id).setTaskQueue(TaskQueues.CONTROL).build()).recover();
    assertThat(pass.unreachable()).doesNotContain(id);
    // Restarted by this pass, or by the Schedule's own if it ran in between: either way its workflow runs again.
    assertThat(workflows.newUntypedWorkflowStub(WorkflowIds.session(id)).describe().getStatus())
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThat(session(id).at("/session/state").asText()).isEqualTo("running");

    JsonNode paused = json.readTree(post("/api/v1/sessions/" + id + "/pause", "{}", token).text());
    assertThat(paused.at("/session/state").asText()).isEqualTo("paused");
    assertThat(podsOf(id)).isEmpty();
    assertThat(send("DELETE", "/api/v1/sessions/" + id, null, token).status()).isEqualTo(200);
    assertThat(session(id).at("/session/state").asText()).isEqualTo("terminated");
  }
}
