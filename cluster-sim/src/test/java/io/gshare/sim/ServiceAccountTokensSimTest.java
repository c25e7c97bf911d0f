package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The TokenRequest subresource and the 401 for an expired or unknown service-account token. */
class ServiceAccountTokensSimTest {

  private static SimulatedCluster cluster;
  private static KubernetesClient admin;

  @BeforeAll
  static void start() {
    cluster = SimulatedCluster.start(SimulatedCluster.defaultSeed(),
        new SimulatedCluster.Options("sa-tokens", "127.0.0.1", 0, Duration.ofMillis(50), Duration.ofMillis(100)));
    admin = cluster.newClient();
    admin.serviceAccounts().inNamespace("default").resource(new ServiceAccountBuilder().withNewMetadata()
        .withName("worker").withNamespace("default").endMetadata().build()).create();
  }

  @AfterAll
  static void stop() {
    admin.close();
    cluster.close();
  }

  private static TokenRequest request(Long seconds) {
    return admin.serviceAccounts().inNamespace("default").withName("worker")
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(seconds).endSpec().build());
  }

  private static KubernetesClient as(String token) {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(cluster.url())
        .withOauthToken(token).withRequestRetryBackoffLimit(0).build()).build();
  }

  @Test
  void aMintedTokenWorksUntilItExpiresAndTheCapShortensIt() throws Exception {
    TokenRequest minted = request(3600L);
    assertThat(Instant.parse(minted.getStatus().getExpirationTimestamp()))
        .isBetween(Instant.now().plusSeconds(3590), Instant.now().plusSeconds(3601));
    try (KubernetesClient worker = as(minted.getStatus().getToken())) {
      assertThat(worker.pods().inNamespace("default").list().getItems()).isNotNull();
    }

    cluster.serviceAccountTokens().maxExpiration(Duration.ofSeconds(1));
    try {
      TokenRequest shortLived = request(3600L);
      assertThat(shortLived.getSpec().getExpirationSeconds()).isEqualTo(1L);
      long refusedBefore = cluster.serviceAccountTokens().refused();
      Thread.sleep(1_200);
      try (KubernetesClient worker = as(shortLived.getStatus().getToken())) {
        KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class,
            () -> worker.pods().inNamespace("default").list());
        assertThat(refused.getCode()).isEqualTo(401);
        assertThat(refused.getMessage()).contains("expired");
      }
      assertThat(cluster.serviceAccountTokens().refused()).isEqualTo(refusedBefore + 1);
    } finally {
      cluster.serviceAccountTokens().maxExpiration(null);
    }
    // The kubeconfig's token is no service-account token: still served.
    assertThat(admin.pods().inNamespace("default").list().getItems()).isNotNull();
  }

  @Test
  void expireAllRefusesEveryTokenMintedSoFarButNotTheNextOne() {
    String old = request(null).getStatus().getToken();
    cluster.serviceAccountTokens().expireAll();
    String fresh = request(null).getStatus().getToken();
    try (KubernetesClient before = as(old); KubernetesClient after = as(fresh)) {
      assertThat(catchThrowableOfType(KubernetesClientException.class, () -> before.namespaces().list()).getCode())
          .isEqualTo(401);
      assertThat(after.namespaces().list().getItems()).isNotEmpty();
    }
  }

  @Test
  void anUnknownTokenOfTheIssuerAShortRequestAndAMissingServiceAccountAreRefused() {
    try (KubernetesClient forged = as(ServiceAccountTokens.PREFIX + "0000")) {
      assertThat(catchThrowableOfType(KubernetesClientException.class, () -> forged.namespaces().list()).getCode())
          .isEqualTo(401);
    }
    assertThat(catchThrowableOfType(KubernetesClientException.class, () -> request(60L)).getCode()).isEqualTo(422);
    assertThat(catchThrowableOfType(KubernetesClientException.class, () -> admin.serviceAccounts()
        .inNamespace("default").withName("nobody").tokenRequest(new TokenRequestBuilder().withNewSpec().endSpec()
            .build())).getCode()).isEqualTo(404);
  }
}
