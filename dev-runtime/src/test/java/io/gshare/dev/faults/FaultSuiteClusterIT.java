package io.gshare.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.client.ApiPaths;
import io.gshare.dev.DevRuntime;
import io.gshare.sim.kube.ApiFault;
import io.gshare.sim.kube.ApiFaultKind;
import io.gshare.sim.kube.ApiFaultQueue;
import io.gshare.sim.kube.KubeCluster;
import io.gshare.sim.kube.LocalKubernetes;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The fault suite's scenarios in the GPU cluster and its worker ({@link FaultSuite}): the worker killed and cut off,
 * the apiserver failing, watches dropped, objects deleted out of band, tokens revoked and expiring, a node dropped, a
 * drain racing pauses, a reclaim blocked. A class of its own, with its own dev runtime, so that it runs beside
 * {@link FaultSuiteControlPlaneIT} when the integration tests run in two forks.
 */
class FaultSuiteClusterIT extends FaultSuite {

  @Test
  @DisplayName("8 out-of-band deletion of a session's pod, Service and Ingress")
  void outOfBandDeletionOfASessionsObjects(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-8");
    try (KubernetesClient kube = kube()) {
      kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session).delete();
      kube.services().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session).delete();
      kube.network().v1().ingresses().inNamespace(KubeNames.SESSIONS_NAMESPACE)
          .withLabel(LabelKeys.SESSION_ID, session).delete();
    }
    Instant deleted = Instant.now();
    // gShare notices: within two minutes the session has its pod again, or it is no longer running.
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    String state = "running";
    boolean hasPod = false;
    while (Instant.now().isBefore(deadline)) {
      state = send("GET", ApiPaths.session(session), null, admin, Map.of()).body().at("/session/state").asText();
      try (KubernetesClient kube = kube()) {
        hasPod = !kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session)
            .list().getItems().isEmpty();
      }
      if (!"running".equals(state) || hasPod) {
        break;
      }
      Thread.sleep(1_000);
    }
    assertThat(!"running".equals(state) || hasPod).as("session " + session + " " + state + " without its pod").isTrue();
    note = "the session was " + (hasPod ? "given a new pod" : state);
    endScenario(info, started, deleted);
    terminate(session);
  }

  /**
   * The worker's token Secret and a running session's volume claim deleted by hand. The worker's next report says
   * its Secret is gone and the api writes a fresh token into it (a rotation of that cluster), which the worker takes
   * without a restart. The claim, mounted, waits on {@code kubernetes.io/pvc-protection} and the session keeps
   * running; once a pause lets it go, the volume sync records it missing, and the resume claims the volume again.
   */
  @Test
  @DisplayName("8 out-of-band deletion of the worker's Secret and of a session's volume claim")
  void outOfBandDeletionOfTheWorkersSecretAndASessionsClaim(TestInfo info) throws Exception {
    Instant started = Instant.now();
    DevRuntime.AttachedCluster cluster = runtime.clusters().get(0);
    String pool = manualPool("fault-8");
    String volume = send("POST", ApiPaths.VOLUMES, "{\"name\":\"fault-8\",\"size_gb\":1,\"pool_id\":\"" + pool + "\"}",
        demo, Map.of()).body().path("id").asText();
    String session = createSession("fault-8-volume", "fractional", demo, volume);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    String tokenBefore = tokenSecretJti(cluster);
    try (KubernetesClient kube = kube(cluster)) {
      kube.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).delete();
      kube.persistentVolumeClaims().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.VOLUME_ID, volume).delete();
    }
    Instant deleted = Instant.now();

    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(tokenSecretJti(cluster)).as("the Secret written again").isNotNull().isNotEqualTo(tokenBefore));
    Duration secretBack = Duration.between(deleted, Instant.now());
    assertThat(awaitOperation(WorkflowIds.tokenRotation(cluster.id()), Duration.ofMinutes(2))).isEqualTo("completed");

    // Mounted: the claim is held by its protection, the session runs on.
    assertThat(claims(volume)).hasSize(1).allMatch(c -> c.getMetadata().getDeletionTimestamp() != null);
    assertThat(awaitState(session, List.of("running"), Duration.ofSeconds(5))).isEqualTo("running");
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(claimPhase(volume)).isEqualTo("Terminating"));

    assertThat(send("POST", ApiPaths.session(session) + "/pause", null, demo, Map.of()).status()).isIn(200, 202);
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(2))).isEqualTo("paused");
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(claims(volume)).isEmpty());
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(claimPhase(volume)).isEqualTo("Missing"));

    assertThat(send("POST", ApiPaths.session(session) + "/resume", null, demo, Map.of()).status()).isIn(200, 202);
    assertThat(awaitState(session, List.of("running"), Duration.ofMinutes(2))).isEqualTo("running");
    assertThat(claims(volume)).hasSize(1).allMatch(c -> c.getMetadata().getDeletionTimestamp() == null);
    Instant resumed = Instant.now();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(claimPhase(volume)).isEqualTo("Bound"));
    note = "the Secret was written again in " + secretBack.toSeconds() + " s; the claim held while mounted, recorded"
        + " missing after the pause, claimed again by the resume";
    endScenario(info, started, resumed);
    terminate(session);
  }

  /**
   * The cluster-worker frozen (SIGSTOP) for two minutes and thawed: a partition as the control plane sees it, since it
   * neither polls Temporal nor heartbeats nor reports. A session created and a pause sent meanwhile are accepted (the
   * pause answers 202 after its 20 s wait) and wait in Temporal's queue; once the worker is back they are carried out,
   * and nothing is left half-done.
   */
  @Test
  @Tag("slow-fault")
  @DisplayName("2 the cluster-worker cut off from Temporal for 2 minutes, then back")
  void theWorkerCutOffForTwoMinutes(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String running = startSession("fault-2-running");
    long worker = workerPid();
    signal(worker, "STOP");
    Instant frozen = Instant.now();
    String created;
    Answer paused;
    try {
      created = createSession("fault-2-created", "fractional", demo);
      paused = send("POST", ApiPaths.session(running) + "/pause", null, demo, Map.of());
      Thread.sleep(Math.max(0, Duration.between(Instant.now(), frozen.plus(Duration.ofMinutes(2))).toMillis()));
      // Nothing was carried out on the cluster meanwhile, and nothing gave up.
      assertThat(send("GET", ApiPaths.session(created), null, demo, Map.of()).body().at("/session/state").asText())
          .isIn("pending", "creating");
    } finally {
      signal(worker, "CONT");
    }
    Instant thawed = Instant.now();
    // Accepted, not carried out: the request answered after its 20 s wait instead of hanging until the thaw.
    assertThat(paused.status()).as(paused.body().toString()).isEqualTo(202);
    assertThat(paused.body().at("/session/state").asText()).isIn("running", "pausing");
    String createdState = awaitState(created, List.of("running", "failed"), Duration.ofMinutes(3));
    String pausedState = awaitState(running, List.of("paused"), Duration.ofMinutes(3));
    assertThat(createdState).isEqualTo("running");
    assertThat(pausedState).isEqualTo("paused");
    note = "after the thaw the waiting create ran and the pause was carried out";
    endScenario(info, started, thawed);
    terminate(created);
    terminate(running);
  }

  /**
   * The worker's in-cluster token as the kubelet projects it: a bound service-account token from the real TokenRequest
   * API, written to the file the worker reads (the dev runtime's deployer plays the kubelet). A real apiserver mints
   * none shorter than 10 minutes, so the tokens are ended as an operator revokes them: every 15 s for a minute the
   * worker's ServiceAccount is deleted, which the apiserver then refuses every bound token of with 401, and the
   * cluster is attached again, which makes the account anew and projects a token of it. The worker, never
   * restarted, must keep reporting and running a session's activities, reading each new token from its file.
   */
  @Test
  @Tag("slow-fault")
  @DisplayName("14 the worker's service-account token revoked every 15 s, a new one projected")
  void theWorkersServiceAccountTokenRevoked(TestInfo info) throws Exception {
    Instant started = Instant.now();
    DevRuntime.AttachedCluster cluster = runtime.clusters().get(0);
    Path tokenFile = runtime.dataDir().resolve("workers").resolve(cluster.id()).resolve("serviceaccount-token");
    long worker = workerPid();
    long refusedBefore = cluster.kube().faultProxy().upstreamAnswers(401);
    Set<String> tokens = new HashSet<>(List.of(Files.readString(tokenFile).trim()));
    String session = createSession("fault-14-sa", "fractional", demo);
    Instant until = Instant.now().plusSeconds(60);
    Instant nextRevocation = Instant.now();
    while (Instant.now().isBefore(until)) {
      if (!Instant.now().isBefore(nextRevocation)) {
        try (KubernetesClient kube = kube()) {
          kube.serviceAccounts().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.NAME).delete();
        }
        reattach(cluster.id());
        nextRevocation = nextRevocation.plusSeconds(15);
      }
      tokens.add(Files.readString(tokenFile).trim());
      Instant seen = Instant.parse(send("GET", ApiPaths.cluster(cluster.id()), null, admin, Map.of()).body()
          .path("worker_last_seen_at").asText());
      assertThat(seen).as("the worker reports throughout").isAfter(Instant.now().minusSeconds(20));
      Thread.sleep(2_000);
    }
    Instant revoked = Instant.now();
    assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(1))).isEqualTo("running");
    long refused = cluster.kube().faultProxy().upstreamAnswers(401) - refusedBefore;
    assertThat(tokens.size() - 1).as("tokens projected in a minute of revocations").isGreaterThanOrEqualTo(4);
    assertThat(workerPid()).as("the worker, never restarted").isEqualTo(worker);
    note = (tokens.size() - 1) + " tokens projected in a minute; " + refused + " request(s) met a revoked token (401)"
        + " and were sent again with the file's new one";
    endScenario(info, started, revoked);
    terminate(session);
  }

  /**
   * The worker's operator token expires under it (its mounted file now holds an expired one): its reports are refused
   * 401 and the cluster is seen no more; a rotation writes a fresh token into its Secret, the worker reads it from
   * the file without a restart, and its reports are taken again.
   */
  @Test
  @DisplayName("14 the worker's operator token expiring, then rotated")
  void theOperatorTokenExpiringThenRotated(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String cluster = runtime.clusters().get(0).id();
    String current = operatorToken();
    String expired = TokenForgery.of(current, runtime.dataDir().resolve("keys").resolve("internal-signing.jwks.json"))
        .flawed().get("expired");
    Path tokenFile = runtime.dataDir().resolve("workers").resolve(cluster)
        .resolve(WorkerObjects.TOKEN_KEY);
    assertThat(tokenFile).as("the worker's mounted token").exists();
    Files.writeString(tokenFile, expired);
    Instant expiredAt = Instant.now();
    // The worker reports every 5 s here: after 15 s without a report it has been refused three times.
    Thread.sleep(3_000);
    Instant lastSeen = workerLastSeen(cluster);
    Thread.sleep(15_000);
    assertThat(workerLastSeen(cluster)).as("reports refused with the expired token").isEqualTo(lastSeen);

    Answer rotation = send("POST", ApiPaths.cluster(cluster) + "/rotate-token", null, admin, Map.of());
    assertThat(rotation.status()).as(rotation.body().toString()).isEqualTo(202);
    String operation = rotation.body().at("/operation/id").asText();
    assertThat(awaitOperation(operation, Duration.ofMinutes(3))).as("rotation " + operation).isEqualTo("completed");
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(workerLastSeen(cluster)).as("reports taken again").isAfter(lastSeen));
    assertThat(Files.readString(tokenFile).trim()).isNotEqualTo(expired);
    note = "refused 401 for " + Duration.between(expiredAt, Instant.now()).toSeconds()
        + " s; the rotation's token was read from the file without a restart";
    endScenario(info, started, Instant.now());
  }

  /**
   * A deleted volume's claim held by a foreign finalizer: the reclaim waits on it in words and finishes once the
   * finalizer goes. Another volume restored one second before its grace ends: restored and kept, or refused 409 and
   * reclaimed, never both.
   */
  @Test
  @Tag("slow-fault")
  @DisplayName("17 a reclaim blocked by a finalizer; a volume restored at the last second of its grace")
  void aReclaimBlockedByAFinalizerAndARestoreAtTheLastSecond(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String pool = manualPool("fault-17");
    String held = volumeWithClaim("fault-17-held", pool);
    String raced = volumeWithClaim("fault-17-raced", pool);
    holdClaim(held, true);
    assertThat(send("DELETE", ApiPaths.volume(held), null, demo, Map.of()).status()).isEqualTo(202);
    Answer deleted = send("DELETE", ApiPaths.volume(raced), null, demo, Map.of());
    assertThat(deleted.status()).isEqualTo(202);
    Instant reclaimAfter = Instant.parse(deleted.body().path("reclaim_after").asText());
    Thread.sleep(Math.max(0, Duration.between(Instant.now(), reclaimAfter.minusSeconds(1)).toMillis()));
    Answer restore = send("POST", ApiPaths.volume(raced) + "/restore", null, demo, Map.of());
    assertThat(restore.status()).as(restore.body().toString()).isIn(200, 409);

    // The held claim is being deleted and waits on the finalizer; the volume is not reclaimed meanwhile.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(claims(held)).as("the reclaim deletes the held claim")
            .anyMatch(c -> c.getMetadata().getDeletionTimestamp() != null));
    Thread.sleep(10_000);
    // Past its grace (deleted: no longer restorable), not reclaimed while its claim exists.
    assertThat(volumeStatus(held)).isEqualTo("deleted");
    holdClaim(held, false);
    Instant released = Instant.now();
    awaitReclaimed(held, Duration.ofMinutes(4));

    if (restore.status() == 200) {
      Thread.sleep(5_000);
      assertThat(volumeStatus(raced)).isNotIn("deleting", "deleted", "reclaimed");
      assertThat(claims(raced)).hasSize(1).allMatch(c -> c.getMetadata().getDeletionTimestamp() == null);
      send("DELETE", ApiPaths.volume(raced), null, demo, Map.of());
    } else {
      awaitReclaimed(raced, Duration.ofMinutes(2));
    }
    note = "the held reclaim finished " + Duration.between(released, Instant.now()).toSeconds()
        + " s after the finalizer went; the restore 1 s before the end was " + (restore.status() == 200
        ? "taken and the volume kept its claim" : "refused 409 and the volume reclaimed");
    endScenario(info, started, released);
  }

  /**
   * The cluster's apiserver answers a session's writes with 500, 503 and 429, and times out after applying one (504
   * Timeout, the write kept); its reads with 503, 500 and 410 Gone while the worker reports (scenario 7: the worker
   * watches nothing, it lists every interval, so a 410 costs one report). Retries with deterministic names and
   * server-side apply make the repeated writes land once: the session runs with one pod, Service and Ingress, and a
   * failed list is not taken for an empty one.
   */
  @Test
  @DisplayName("6 the apiserver answering 500, 503, 429 and timing out after a write")
  void theApiserverFailingAndTimingOutAfterAWrite(TestInfo info) throws Exception {
    Instant started = Instant.now();
    ApiFaultQueue faults = runtime.clusters().get(0).kube().apiFaults();
    String sessions = "/api/v1/namespaces/" + KubeNames.SESSIONS_NAMESPACE + "/";
    faults.inject(List.of(
        new ApiFault("PATCH", sessions, ApiFaultKind.INTERNAL_ERROR),
        new ApiFault("PATCH", sessions, ApiFaultKind.UNAVAILABLE),
        new ApiFault("PATCH", sessions, ApiFaultKind.TOO_MANY_REQUESTS),
        new ApiFault("PATCH", sessions, ApiFaultKind.TIMEOUT_AFTER_WRITE),
        new ApiFault("PATCH", sessions, ApiFaultKind.TIMEOUT_AFTER_WRITE),
        new ApiFault("GET", sessions + "pods", ApiFaultKind.UNAVAILABLE),
        new ApiFault("GET", sessions + "pods", ApiFaultKind.INTERNAL_ERROR),
        new ApiFault("GET", sessions + "pods", ApiFaultKind.GONE)));
    String session;
    try {
      session = createSession("fault-6", "fractional", demo);
      assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
          assertThat(faults.pending()).as("faults no request met").isEmpty());
    } finally {
      faults.clear();
    }
    try (KubernetesClient kube = kube()) {
      assertThat(kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).withLabel(LabelKeys.SESSION_ID, session)
          .list().getItems()).hasSize(1);
    }
    Thread.sleep(5_000);
    assertThat(send("GET", ApiPaths.session(session), null, demo, Map.of()).body().at("/session/state").asText())
        .as("a failed list is not an empty one").isEqualTo("running");
    note = faults.answered().size() + " apiserver faults answered; the session ran with one pod";
    endScenario(info, started, Instant.now());
    terminate(session);
  }

  /**
   * The session activity that waits for a pod to run watches it (the reports list, they do not watch). Its watches
   * are answered 410 Gone, dropped at once (the stream ends with no event) and refused 500: each costs a read and a
   * new watch, the session runs. KWOK runs a bound pod within a second, before anyone needs to watch, so HAMi's
   * scheduler binds nothing ({@code holdBinding}) until the faults are met: the pod waits, as while HAMi restarts. (A
   * dropped node holds a pod only once KWOK has seen the node's lease taken, which it learns through a watch.)
   */
  @Test
  @DisplayName("7 a pod watch dropped, refused 500 and answered 410 Gone while a session starts")
  void aWatchDroppedAndA410Gone(TestInfo info) throws Exception {
    Instant started = Instant.now();
    KubeCluster kube = runtime.clusters().get(0).kube();
    ApiFaultQueue faults = kube.apiFaults();
    String pods = "/api/v1/namespaces/" + KubeNames.SESSIONS_NAMESPACE + "/pods";
    String watch = ApiFault.WATCH;
    int answeredBefore = faults.answered().size();
    faults.inject(List.of(
        new ApiFault(watch, pods, ApiFaultKind.DROPPED),
        new ApiFault(watch, pods, ApiFaultKind.INTERNAL_ERROR),
        new ApiFault(watch, pods, ApiFaultKind.GONE)));
    String session;
    kube.hami().holdBinding();
    try {
      session = createSession("fault-7", "fractional", demo);
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
          assertThat(faults.pending()).as("watch faults not met").isEmpty());
      kube.hami().resumeBinding();
      assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
    } finally {
      kube.hami().resumeBinding();
      faults.clear();
    }
    List<ApiFault> met = faults.answered().subList(answeredBefore, faults.answered().size());
    assertThat(met).as("watch faults met").isNotEmpty();
    note = met.size() + " pod watches failed (" + met.stream().map(f -> f.kind().name()).collect(Collectors.joining(", ")) + "); the session ran";
    endScenario(info, started, Instant.now());
    terminate(session);
  }

  @Test
  @DisplayName("1 cluster-worker SIGKILL while a session is being created")
  void theClusterWorkerKilledWhileASessionIsCreated(TestInfo info) throws Exception {
    Instant started = Instant.now();
    long worker = workerPid();
    String session = createSession("fault-1", "fractional", demo);
    // SIGKILL: no shutdown hook, no finished activity; the process is restarted as a Deployment restarts its pod.
    assertThat(ProcessHandle.of(worker).map(ProcessHandle::destroyForcibly).orElse(false)).isTrue();
    assertThat(awaitState(session, List.of("running", "failed"), Duration.ofMinutes(3))).isEqualTo("running");
    long restarted = workerPid();
    assertThat(restarted).isNotEqualTo(worker);
    // "Mid workflow task" cannot happen to the cluster-worker: it polls its queue for activities only (the workflows
    // run in the api, whose kill mid workflow task is scenario 3's).
    assertThat(pollers(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)).as("workflow pollers of the worker's queue").isZero();
    assertThat(pollers(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)).as("activity pollers of the worker's queue").isPositive();
    note = "the create's activities retried on the restarted worker (pid " + worker + " -> " + restarted
        + "); its queue has no workflow pollers";
    endScenario(info, started, started);
    terminate(session);
  }

  @Test
  @DisplayName("15 a node dropped while its sessions start; restored with the same hostname")
  void aNodeDroppedWhileItsSessionsStartAndRestored(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String node = "sim-a100-0";
    KubeCluster kube = runtime.clusters().get(0).kube();
    awaitSchedulable(nodeIdOf(node));
    List<String> sessions = new ArrayList<>();
    Instant dropped;
    // The pods are bound only after KWOK has seen the drop: KWOK runs a bound pod within a second, and learns that
    // the kubelet is silent through a watch of the node's lease, so a pod bound at the drop could run.
    kube.hami().holdBinding();
    try {
      for (int i = 0; i < 2; i++) {
        sessions.add(createSession("fault-15-" + i, "fractional", demo));
      }
      await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500))
          .untilAsserted(() -> assertThat(sessionPods(sessions)).as("the sessions' pods").hasSize(2));
      kube.dropNode(node);
      dropped = Instant.now();
      Thread.sleep(3_000);
    } finally {
      kube.hami().resumeBinding();
    }
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(sessionPods(sessions)).as("pods bound to the silent node")
            .allMatch(p -> node.equals(p.getSpec().getNodeName())));
    // The real node lifecycle controller sees the silent kubelet and marks the node unreachable.
    await().atMost(LocalKubernetes.NODE_MONITOR_GRACE.plusSeconds(30)).pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(readyCondition(node)).isEqualTo("Unknown"));
    Duration unreachableAfter = Duration.between(dropped, Instant.now());
    // While its kubelet is silent, nothing runs there.
    for (String session : sessions) {
      assertThat(send("GET", ApiPaths.session(session), null, demo, Map.of()).body().at("/session/state").asText())
          .isNotEqualTo("running");
    }
    kube.restoreNode(node);
    Instant restored = Instant.now();
    List<String> ends = new ArrayList<>();
    for (String session : sessions) {
      ends.add(awaitState(session, List.of("running", "paused", "failed"), Duration.ofMinutes(3)));
    }
    assertThat(ends).allMatch(List.of("running", "paused", "failed")::contains);
    // The node came back as itself: one row for the hostname, ready again.
    JsonNode nodes = send("GET", ApiPaths.query(ApiPaths.NODES, "cluster_id", runtime.clusters().get(0).id()), null, admin, Map.of())
        .body().path("items");
    assertThat(nodes.findValuesAsText("hostname").stream().filter(node::equals)).hasSize(1);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(readyCondition(node)).isEqualTo("True"));
    note = "unreachable after " + unreachableAfter.toSeconds() + " s; sessions " + ends;
    endScenario(info, started, restored);
    for (String session : sessions) {
      terminate(session);
    }
    awaitSchedulable(nodeIdOf(node)); // the scenario after this one places on it
  }

  private List<Pod> sessionPods(List<String> sessions) {
    try (KubernetesClient kube = kube()) {
      return kube.pods().inNamespace(KubeNames.SESSIONS_NAMESPACE).list().getItems().stream()
          .filter(p -> p.getMetadata().getLabels() != null
              && sessions.contains(p.getMetadata().getLabels().get(LabelKeys.SESSION_ID)))
          .toList();
    }
  }

  /**
   * Three parties pause one session at once: a node drain, its user, and the idle reaper. The reaper's part is the
   * signal its sweep sends a session it found idle past its policy's timeout ({@code IdleReaperWorkflowImpl}),
   * sent here as the sweep sends it: the sweep's decision needs minutes of idle samples and is
   * {@code IdleSessionsTest}'s.
   */
  @Test
  @DisplayName("16 a drain racing a user's pause and the idle reaper's pause on the same session")
  void aDrainRacingAUsersPauseAndTheReapers(TestInfo info) throws Exception {
    Instant started = Instant.now();
    String session = startSession("fault-16");
    String node = send("GET", ApiPaths.session(session), null, admin, Map.of()).body().at("/session/node_id").asText();
    WorkflowServiceStubs temporal = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(runtime.temporalAddress()).build());
    List<Answer> answers;
    try {
      SessionWorkflow reaper = WorkflowClient.newInstance(temporal)
          .newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(session));
      answers = parallel(3, 3, i -> switch (i) {
        case 0 -> send("POST", ApiPaths.node(node) + "/drain", "{\"mode\":\"pause\",\"reason\":\"fault 16\"}", admin,
            Map.of());
        case 1 -> send("POST", ApiPaths.session(session) + "/pause", null, demo, Map.of());
        default -> {
          reaper.idle("idle for 30 minutes by hami (fault 16)");
          yield new Answer(0, JSON.createObjectNode(), "", null);
        }
      });
    } finally {
      temporal.shutdown();
    }
    Instant raced = Instant.now();
    assertThat(answers).extracting(Answer::status).allMatch(s -> s < 500);
    assertThat(answers.get(0).status()).as(answers.get(0).body().toString()).isEqualTo(202);
    String drain = answers.get(0).body().at("/operation/id").asText();
    String status = awaitOperation(drain, Duration.ofMinutes(3));
    assertThat(status).isEqualTo("completed");
    // Both wanted it paused: it is, once, and billed once.
    assertThat(awaitState(session, List.of("paused"), Duration.ofMinutes(2))).isEqualTo("paused");
    // Paused once: one run billed, its window closed (a pause, resume and pause again would show two).
    assertThat(billingWindows(session)).as("billing windows (all, open) of " + session).containsExactly(1L, 0L);
    note = "user's pause " + answers.get(1).status() + ", drain " + status + ", reaper's signal delivered; paused once";
    endScenario(info, started, raced);
    Answer uncordon = send("POST", ApiPaths.node(node) + "/uncordon", null, admin, Map.of());
    assertThat(awaitOperation(uncordon.body().at("/operation/id").asText(), Duration.ofMinutes(2))).isEqualTo("completed");
    awaitSchedulable(node);
    terminate(session);
  }
}
