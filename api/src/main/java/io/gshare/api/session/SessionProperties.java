package io.gshare.api.session;

import io.gshare.activities.control.SessionStarts;
import io.gshare.api.security.SignInPaths;
import io.gshare.workflows.session.SessionUrlForm;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.net.URI;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Session settings ({@code gshare.sessions.*}).
 *
 * @param authUrl what session Ingresses' auth-url calls, as the cluster reaches it; empty means the
 *     control plane's own {@code /internal/connect/verify} under {@code gshare.cluster-worker.control-plane-url}
 * @param checkpointBuilderImage a buildah image the nodes can pull (mirror it into the LAN registry);
 *     empty makes every pause cold
 * @param signInUrl where session routers send a browser that has no cookie on the session domain (ingress-nginx's
 *     auth-signin); empty means {@code /auth/connect} on the host of the auth-url
 * @param recoveryRetryInterval how often unfinished sessions are looked at for a workflow Temporal no longer has: the
 *     interval of the Temporal Schedule {@code session-recovery}, which every api process also triggers once at its
 *     start; below one second it runs every second, a Schedule's shortest interval
 * @param urlScheme the scheme of session URLs ({@code https}; {@code http} only for a loopback ingress such as the dev
 *     runtime's)
 * @param urlPort the port of session URLs; 0: the scheme's default, not written into the URL
 */
@Validated
@ConfigurationProperties(prefix = "gshare.sessions", ignoreUnknownFields = false)
public record SessionProperties(
    @DefaultValue("") @Pattern(regexp = "(https?://\\S+)?", message = "must be an http(s) URL") String authUrl,
    @DefaultValue("") String checkpointBuilderImage,
    @DefaultValue("60s") @NotNull @DurationMin(millis = 1) Duration recoveryRetryInterval,
    @DefaultValue("") @Pattern(regexp = "(https?://\\S+)?", message = "must be an http(s) URL") String signInUrl,
    @DefaultValue("https") @NotNull @Pattern(regexp = "https?", message = "must be https or http") String urlScheme,
    @DefaultValue("0") @Min(0) @Max(65535) int urlPort) {

  /** How session URLs are spelled around their cluster's domain. */
  public SessionUrlForm urlForm() {
    return new SessionUrlForm(urlScheme, urlPort);
  }

  /**
   * What every session's spec carries, with the URLs not configured filled in: the auth-url is then the control
   * plane's own {@code /internal/connect/verify} under {@code controlPlaneUrl}, and the sign-in URL the console's
   * {@code /auth/connect} on the host that serves the auth check (the api serves both).
   */
  public SessionStarts.Settings startSettings(String controlPlaneUrl) {
    String auth = authUrl != null && !authUrl.isBlank() ? authUrl
        : (controlPlaneUrl == null || controlPlaneUrl.isBlank() ? "http://127.0.0.1:8080"
            : controlPlaneUrl.replaceAll("/$", "")) + "/internal/connect/verify";
    String signIn = signInUrl;
    if (signIn == null || signIn.isBlank()) {
      URI check = URI.create(auth);
      signIn = check.getScheme() + "://" + check.getRawAuthority() + SignInPaths.CONNECT;
    }
    return new SessionStarts.Settings(auth, signIn, urlForm(), checkpointBuilderImage);
  }
}
