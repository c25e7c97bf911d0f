package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ApiFaultsSimTest {

  private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

  private static SimulatedCluster cluster;
  private static KubernetesClient client;
  /** fabric8 retries 5xx and 429 with backoff; this one shows the apiserver's own answers. */
  private static KubernetesClient noRetry;

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("faults", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100)));
    client = cluster.newClient();
    noRetry = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build()).build();
  }

  @AfterAll
  static void stop() {
    noRetry.close();
    client.close();
    cluster.close();
  }

  @Test
  void eachFaultAnswersTheNextMatchingRequestOnceAndATimeoutAfterWriteKeepsTheWrite() {
    cluster.apiFaults().inject(List.of(
        new ApiFaults.Fault("POST", CONFIGMAPS, ApiFaults.Kind.INTERNAL_ERROR),
        new ApiFaults.Fault("GET", CONFIGMAPS + "/", ApiFaults.Kind.TOO_MANY_REQUESTS),
        new ApiFaults.Fault("POST", CONFIGMAPS, ApiFaults.Kind.TIMEOUT_AFTER_WRITE)));

    KubernetesClientException first = catchThrowableOfType(KubernetesClientException.class,
        () -> noRetry.configMaps().inNamespace("default").resource(map("refused")).create());
    assertThat(first.getCode()).isEqualTo(500);
    assertThat(first.getStatus().getReason()).isEqualTo("InternalError");

    KubernetesClientException busy = catchThrowableOfType(KubernetesClientException.class,
        () -> noRetry.configMaps().inNamespace("default").withName("refused").get());
    assertThat(busy.getCode()).isEqualTo(429);
    assertThat(busy.getStatus().getDetails().getRetryAfterSeconds()).isEqualTo(1);
    assertThat(noRetry.configMaps().inNamespace("default").withName("refused").get()).as("not written").isNull();

    KubernetesClientException timedOut = catchThrowableOfType(KubernetesClientException.class,
        () -> noRetry.configMaps().inNamespace("default").resource(map("applied")).create());
    assertThat(timedOut.getCode()).isEqualTo(504);
    assertThat(timedOut.getStatus().getReason()).isEqualTo("Timeout");
    assertThat(noRetry.configMaps().inNamespace("default").withName("applied").get()).as("written all the same")
        .isNotNull();
    assertThat(cluster.apiFaults().pending()).isEmpty();
    assertThat(cluster.apiFaults().answered()).extracting(ApiFaults.Fault::kind).endsWith(
        ApiFaults.Kind.INTERNAL_ERROR, ApiFaults.Kind.TOO_MANY_REQUESTS, ApiFaults.Kind.TIMEOUT_AFTER_WRITE);
  }

  @Test
  void theDefaultClientRetriesAnUnavailableApiserver() {
    cluster.apiFaults().inject(List.of(
        new ApiFaults.Fault("POST", CONFIGMAPS, ApiFaults.Kind.UNAVAILABLE),
        new ApiFaults.Fault("POST", CONFIGMAPS, ApiFaults.Kind.UNAVAILABLE)));
    assertThat(client.configMaps().inNamespace("default").resource(map("retried")).create()).isNotNull();
    assertThat(cluster.apiFaults().pending()).isEmpty();
  }

  /** The way the worker's session activities wait on a pod: watch again after a failed watch, until decided. */
  @Test
  void aWatchRefusedGoneOrDroppedIsAnsweredAsSuchAndAPlainGetIsNotAWatch() throws Exception {
    client.configMaps().inNamespace("default").resource(map("watched")).create();
    cluster.apiFaults().inject(List.of(
        new ApiFaults.Fault(ApiFaults.Fault.WATCH, CONFIGMAPS, ApiFaults.Kind.GONE),
        new ApiFaults.Fault(ApiFaults.Fault.WATCH, CONFIGMAPS, ApiFaults.Kind.DROPPED),
        new ApiFaults.Fault(ApiFaults.Fault.WATCH, CONFIGMAPS, ApiFaults.Kind.INTERNAL_ERROR)));
    try {
      // A read is no watch: it passes the faults by.
      assertThat(noRetry.configMaps().inNamespace("default").withName("watched").get()).isNotNull();
      assertThat(cluster.apiFaults().pending()).hasSize(3);

      List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
      java.util.concurrent.CompletableFuture<ConfigMap> changed = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        while (true) {
          try {
            return client.configMaps().inNamespace("default").withName("watched").waitUntilCondition(
                c -> c != null && "2".equals(c.getData().get("k")), 2, java.util.concurrent.TimeUnit.SECONDS);
          } catch (io.fabric8.kubernetes.client.KubernetesClientTimeoutException pending) {
            // nothing yet: watch again
          } catch (KubernetesClientException failed) {
            failures.add(failed.getCode() + " " + failed.getMessage());
          }
        }
      });
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(cluster.apiFaults().pending()).isEmpty());
      client.configMaps().inNamespace("default").withName("watched").edit(c -> {
        c.getData().put("k", "2");
        return c;
      });
      assertThat(changed.get(30, java.util.concurrent.TimeUnit.SECONDS).getData()).containsEntry("k", "2");
      assertThat(cluster.apiFaults().answered()).extracting(ApiFaults.Fault::kind)
          .contains(ApiFaults.Kind.GONE, ApiFaults.Kind.DROPPED, ApiFaults.Kind.INTERNAL_ERROR);
      System.out.println("watch failures seen by the client: " + failures);
      assertThat(failures).as("the refused watches reach the client as failures").isNotEmpty();
    } finally {
      cluster.apiFaults().clear();
    }
  }

  private static ConfigMap map(String name) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("k", "v").build();
  }
}
