package io.gshare.api.session;

import io.gshare.workflows.session.SessionUrlForm;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
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
 * @param recoveryRetryInterval how often sessions whose workflow could not be reached at start are tried again
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
}
