package io.gshare.localdeployer;

import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gshare.activities.cluster.model.WorkerObjects;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's projected service-account token, for the dev runtime's local workers: a bound token of the worker's
 * ServiceAccount, minted by the TokenRequest API and written to the file the worker reads as its in-cluster token,
 * then minted again when 80% of its lifetime has passed, as the kubelet does. The worker's Kubernetes client reads the
 * file again every minute and on a 401, so it never holds an expired token. A cluster that mints no token (the
 * request refused) gets the kubeconfig's token instead, as before.
 */
final class ProjectedTokens implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProjectedTokens.class);

  /** What the kubelet asks for a projected token by default (an hour and 7 seconds). */
  static final long EXPIRATION_SECONDS = 3607;
  /** The share of a token's lifetime after which the kubelet mints the next one. */
  static final double REFRESH_AT = 0.8;
  static final Duration RETRY = Duration.ofSeconds(10);

  private final BiConsumer<Path, String> writer;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread thread = new Thread(r, "projected-token-refresh");
    thread.setDaemon(true);
    return thread;
  });
  private final Map<String, ScheduledFuture<?>> refreshes = new ConcurrentHashMap<>();

  /** @param writer writes a token file atomically (the kubelet swaps the projected file in one step) */
  ProjectedTokens(BiConsumer<Path, String> writer) {
    this.writer = writer;
  }

  /**
   * Writes the worker's token into {@code file} now and keeps it fresh. Answers how: a projected token and its
   * expiry, or the kubeconfig's token.
   */
  String project(String clusterId, KubernetesClient cluster, Path file) {
    cancel(clusterId);
    Config config = new ConfigBuilder(cluster.getConfiguration()).build();
    try {
      Instant expires = mint(clusterId, cluster, file);
      return "projected service-account token, expires " + expires;
    } catch (KubernetesClientException refused) {
      log.info("cluster {} mints no service-account token ({}); its worker uses the kubeconfig's token", clusterId,
          refused.getMessage());
      String kubeToken = config.getAutoOAuthToken() != null ? config.getAutoOAuthToken() : config.getOauthToken();
      writer.accept(file, kubeToken == null ? "" : kubeToken);
      return "the kubeconfig's token";
    }
  }

  private Instant mint(String clusterId, KubernetesClient cluster, Path file) {
    TokenRequest answer = cluster.serviceAccounts().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.NAME)
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(EXPIRATION_SECONDS).endSpec().build());
    writer.accept(file, answer.getStatus().getToken());
    Instant expires = Instant.parse(answer.getStatus().getExpirationTimestamp());
    long lifetime = Math.max(1_000, Duration.between(Instant.now(), expires).toMillis());
    schedule(clusterId, new ConfigBuilder(cluster.getConfiguration()).build(), file, (long) (lifetime * REFRESH_AT));
    return expires;
  }

  private void schedule(String clusterId, Config config, Path file, long delayMillis) {
    refreshes.put(clusterId, timer.schedule(() -> {
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        Instant expires = mint(clusterId, client, file);
        log.debug("refreshed the service-account token of {}'s worker (expires {})", clusterId, expires);
      } catch (RuntimeException e) {
        log.warn("could not refresh the service-account token of {}'s worker ({}); trying again in {} s", clusterId,
            e.toString(), RETRY.toSeconds());
        schedule(clusterId, config, file, RETRY.toMillis());
      }
    }, delayMillis, TimeUnit.MILLISECONDS));
  }

  /** Stops refreshing the cluster's token (its worker is removed). */
  void cancel(String clusterId) {
    ScheduledFuture<?> refresh = refreshes.remove(clusterId);
    if (refresh != null) {
      refresh.cancel(false);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
