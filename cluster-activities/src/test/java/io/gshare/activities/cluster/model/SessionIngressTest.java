package io.gshare.activities.cluster.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionPod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The session Ingress's auth annotations: the check, the sign-in redirect, and a cache key that never crosses callers. */
class SessionIngressTest {

  private static SessionPod pod(String signInUrl) {
    return new SessionPod("ses_a", "usr_a", new GpuPlacement("clu_a", "nod_a", "gpu-0", "exclusive", "NVIDIA H100",
        List.of("GPU-1"), null, null, false), "registry.example.com/jupyter:1", 8888, "/lab", "gshare.lab.example.com",
        "https://gshare.example.com/internal/connect/verify", null, null, null, signInUrl);
  }

  @Test
  void aBrowserWithoutACookieIsSentToTheConsolesConnectAndTheCacheKeyNamesSessionCallerAndCode() {
    Map<String, String> annotations = SessionObjects.ingress(pod("https://gshare.example.com/auth/connect"))
        .getMetadata().getAnnotations();
    assertThat(annotations).containsEntry(Annotations.NGINX_AUTH_URL, "https://gshare.example.com/internal/connect/verify")
        .containsEntry(Annotations.NGINX_AUTH_SIGNIN, "https://gshare.example.com/auth/connect")
        .containsEntry(Annotations.NGINX_AUTH_CACHE_KEY, "ses_a$cookie_gshare_token$http_authorization$arg_gshare_code");
  }

  @Test
  void aSessionStartedBeforeTheSignInExistedGetsNoRedirect() {
    assertThat(SessionObjects.ingress(pod(null)).getMetadata().getAnnotations())
        .doesNotContainKey(Annotations.NGINX_AUTH_SIGNIN);
  }
}
