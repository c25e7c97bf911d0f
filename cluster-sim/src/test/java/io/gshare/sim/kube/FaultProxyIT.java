package io.gshare.sim.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.gshare.sim.SimSeed;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link KubeCluster} started with its {@link FaultProxy}: each fault kind reaches a fabric8 client as the real
 * apiserver's status would, a 504 after a write leaves the object written, a dropped watch ends at once and the
 * client watches again, watches stream through it, and credentials go through as they came: the admin kubeconfig's
 * certificate as the admin, a ServiceAccount's token as that account, nothing as anonymous. And the cluster's other
 * fault: a dropped node, which the real node lifecycle controller marks unreachable, back Ready once restored.
 */
class FaultProxyIT {

  private static final String CONFIG_MAPS = "/api/v1/namespaces/default/configmaps";

  private static KubeCluster cluster;
  /** The admin through the proxy, no retries: each fault's answer is what the call sees. */
  private static KubernetesClient admin;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    cluster = KubeCluster.start(SimSeed.defaultSeed(),
        KubeCluster.Options.defaults().withName("fault-proxy-it").withFaultProxy());
    Config config;
    try (KubernetesClient defaults = cluster.newClient()) {
      config = defaults.getConfiguration();
    }
    config.setRequestRetryBackoffLimit(0);
    admin = new KubernetesClientBuilder().withConfig(config).build();
    http = HttpClient.newBuilder().sslContext(trusting(cluster.kubernetes().caCertificatePem())).build();
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void noFaultLeft() {
    cluster.apiFaults().clear();
  }

  @Test
  void theClusterIsReachedThroughTheProxyOnly(@TempDir Path dir) throws Exception {
    assertThat(cluster.url()).isEqualTo(cluster.faultProxy().url()).isNotEqualTo(cluster.kubernetes().url());
    String kubeconfig = Files.readString(cluster.writeKubeconfig(dir.resolve("kubeconfig")));
    assertThat(kubeconfig).contains(cluster.url()).doesNotContain(cluster.kubernetes().url());
    assertThat(admin.getMasterUrl().toString()).startsWith(cluster.url());
    // The header-less admin path: the kubeconfig's client certificate, forwarded as the admin's.
    assertThat(admin.nodes().list().getItems()).extracting(n -> n.getMetadata().getName()).contains("sim-a100-0");
    assertThat(admin.getKubernetesVersion().getGitVersion()).isEqualTo("v1.37.2");
  }

  @Test
  void eachFaultIsAnsweredAsTheRealApiserverWordsIt() {
    for (ApiFaultKind kind : List.of(ApiFaultKind.INTERNAL_ERROR, ApiFaultKind.UNAVAILABLE,
        ApiFaultKind.TOO_MANY_REQUESTS, ApiFaultKind.GONE)) {
      cluster.apiFaults().inject(new ApiFault("GET", CONFIG_MAPS, kind));
      KubernetesClientException failed = catchThrowableOfType(KubernetesClientException.class,
          () -> admin.configMaps().inNamespace("default").list());
      assertThat(failed).as(kind.name()).isNotNull();
      assertThat(failed.getCode()).as(kind.name()).isEqualTo(kind.code());
      assertThat(failed.getStatus().getReason()).isEqualTo(kind.reason());
      assertThat(failed.getStatus().getMessage()).isEqualTo(kind.message());
      assertThat(failed.getStatus().getStatus()).isEqualTo("Failure");
      assertThat(failed.getStatus().getKind()).isEqualTo("Status");
      // Spent: the same call now reaches the apiserver.
      assertThat(admin.configMaps().inNamespace("default").list().getItems()).isNotNull();
    }
    assertThat(cluster.apiFaults().answered()).extracting(ApiFault::kind).containsSubsequence(
        ApiFaultKind.INTERNAL_ERROR, ApiFaultKind.UNAVAILABLE, ApiFaultKind.TOO_MANY_REQUESTS, ApiFaultKind.GONE);
  }

  @Test
  void aTooManyRequestsSaysWhenToRetryAndAFaultMatchesItsMethodAndPathOnly() throws Exception {
    cluster.apiFaults().inject(new ApiFault("POST", CONFIG_MAPS, ApiFaultKind.UNAVAILABLE),
        new ApiFault(ApiFault.WATCH, CONFIG_MAPS, ApiFaultKind.GONE),
        new ApiFault("GET", "/api/v1/namespaces/other", ApiFaultKind.GONE),
        new ApiFault("GET", CONFIG_MAPS, ApiFaultKind.TOO_MANY_REQUESTS));
    // Anonymous (no header, no certificate): the fault answers before anything is forwarded.
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(cluster.url() + CONFIG_MAPS)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(429);
    assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(answer.body()).contains("\"kind\":\"Status\"").contains("\"reason\":\"TooManyRequests\"")
        .contains("\"retryAfterSeconds\":1").contains("\"code\":429");
    assertThat(cluster.apiFaults().pending()).extracting(ApiFault::method).containsExactly("POST", "WATCH", "GET");
    cluster.apiFaults().clear();
    assertThat(cluster.apiFaults().pending()).isEmpty();
  }

  @Test
  void aTimeoutAfterAWriteLeavesTheObjectWritten() {
    cluster.apiFaults().inject(new ApiFault("POST", CONFIG_MAPS, ApiFaultKind.TIMEOUT_AFTER_WRITE));
    ConfigMap written = new ConfigMapBuilder().withNewMetadata().withName("written-then-timed-out").endMetadata()
        .addToData("k", "v").build();
    KubernetesClientException timedOut = catchThrowableOfType(KubernetesClientException.class,
        () -> admin.configMaps().inNamespace("default").resource(written).create());
    assertThat(timedOut).isNotNull();
    assertThat(timedOut.getCode()).isEqualTo(504);
    assertThat(timedOut.getStatus().getReason()).isEqualTo("Timeout");
    assertThat(admin.configMaps().inNamespace("default").withName("written-then-timed-out").get().getData())
        .containsEntry("k", "v");
    // A retry of the create meets the apiserver's own answer: it exists.
    KubernetesClientException again = catchThrowableOfType(KubernetesClientException.class,
        () -> admin.configMaps().inNamespace("default").resource(written).create());
    assertThat(again.getCode()).isEqualTo(409);
    assertThat(cluster.faultProxy().upstreamAnswers(409)).isPositive();
  }

  @Test
  void aDroppedWatchEndsAtOnceAndTheClientWatchesAgain() throws Exception {
    cluster.apiFaults().inject(new ApiFault(ApiFault.WATCH, CONFIG_MAPS, ApiFaultKind.DROPPED));
    // Raw: 200, no event, the stream ends.
    HttpResponse<String> dropped = http.send(HttpRequest.newBuilder(URI.create(cluster.url() + CONFIG_MAPS
        + "?watch=true")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(dropped.statusCode()).isEqualTo(200);
    assertThat(dropped.body()).isEmpty();

    cluster.apiFaults().inject(new ApiFault(ApiFault.WATCH, CONFIG_MAPS, ApiFaultKind.DROPPED));
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = admin.configMaps().inNamespace("default").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, ConfigMap resource) {
        seen.add(action + " " + resource.getMetadata().getName());
      }

      @Override
      public void onClose(WatcherException cause) {}
    })) {
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.apiFaults().pending().isEmpty());
      admin.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
          .withName("after-the-drop").endMetadata().build()).create();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(seen).contains("ADDED after-the-drop"));
    }
  }

  @Test
  void aWatchStreamsThroughTheProxyEventByEvent() throws Exception {
    HttpResponse<InputStream> watch = http.send(HttpRequest.newBuilder(URI.create(cluster.url()
        + "/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dstreamed"))
        .header("Authorization", "Bearer " + token("streamer", true)).build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(watch.statusCode()).isEqualTo(200);
    try (BufferedReader events = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8))) {
      admin.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("streamed")
          .endMetadata().build()).create();
      // One event, while the stream stays open.
      assertThat(events.readLine()).contains("\"type\":\"ADDED\"").contains("\"name\":\"streamed\"");
    }
  }

  @Test
  void credentialsGoThroughAsTheyCame() throws Exception {
    // Anonymous: the real apiserver's refusal of system:anonymous, not the admin's rights.
    HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/api/v1/nodes"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).isEqualTo(403);
    assertThat(anonymous.body()).contains("system:anonymous");

    // A ServiceAccount's bearer token: judged as that account (no RBAC: refused), not as the admin.
    String token = token("no-rights", false);
    String kubeconfig = cluster.kubernetes().kubeconfigForToken(token).replace(cluster.kubernetes().url(), cluster.url());
    try (KubernetesClient account = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
      KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class,
          () -> account.nodes().list());
      assertThat(refused.getCode()).isEqualTo(403);
      assertThat(refused.getMessage()).contains("system:serviceaccount:default:no-rights");
    }
    // A token that is no token: 401 from the apiserver.
    HttpResponse<String> forged = http.send(HttpRequest.newBuilder(URI.create(cluster.url() + "/api/v1/nodes"))
        .header("Authorization", "Bearer not-a-token").build(), HttpResponse.BodyHandlers.ofString());
    assertThat(forged.statusCode()).isEqualTo(401);
  }

  @Test
  void aDroppedNodeTurnsUnreachableAndComesBackReady() {
    cluster.dropNode("sim-cpu-0");
    await().atMost(LocalKubernetes.NODE_MONITOR_GRACE.plusSeconds(30)).pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(ready("sim-cpu-0")).isEqualTo("Unknown"));
    assertThat(admin.nodes().withName("sim-cpu-0").get().getSpec().getTaints()).extracting(t -> t.getKey())
        .contains("node.kubernetes.io/unreachable");
    assertThat(ready("sim-a100-0")).as("the other nodes").isEqualTo("True");
    cluster.restoreNode("sim-cpu-0");
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(ready("sim-cpu-0")).isEqualTo("True"));
  }

  private static String ready(String node) {
    return admin.nodes().withName(node).get().getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType())).map(c -> c.getStatus()).findFirst().orElse(null);
  }

  /** A bound token of a new ServiceAccount in default; {@code canWatch}: allowed to watch ConfigMaps there. */
  private static String token(String account, boolean canWatch) {
    admin.serviceAccounts().inNamespace("default").resource(new ServiceAccountBuilder().withNewMetadata()
        .withName(account).endMetadata().build()).serverSideApply();
    if (canWatch) {
      admin.rbac().roles().inNamespace("default").resource(new RoleBuilder()
          .withNewMetadata().withName(account).endMetadata().addNewRule().withApiGroups("")
          .withResources("configmaps").withVerbs("list", "watch").endRule().build()).serverSideApply();
      admin.rbac().roleBindings().inNamespace("default").resource(
          new RoleBindingBuilder().withNewMetadata().withName(account)
              .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "Role", account)
              .addNewSubject().withKind("ServiceAccount").withName(account).withNamespace("default").endSubject()
              .build()).serverSideApply();
    }
    return admin.serviceAccounts().inNamespace("default").withName(account).tokenRequest(new TokenRequestBuilder()
        .withNewSpec().withExpirationSeconds(600L).endSpec().build()).getStatus().getToken();
  }

  private static SSLContext trusting(String caPem) throws Exception {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII))));
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }
}
