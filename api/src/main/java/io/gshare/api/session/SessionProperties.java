package io.gshare.api.session;

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
 */
@Validated
@ConfigurationProperties(prefix = "gshare.sessions", ignoreUnknownFields = false)
public record SessionProperties(
    @DefaultValue("") @Pattern(regexp = "(https?://\\S+)?", message = "must be an http(s) URL") String authUrl,
    @DefaultValue("") String checkpointBuilderImage,
    @DefaultValue("60s") @NotNull @DurationMin(millis = 1) Duration recoveryRetryInterval,
    @DefaultValue("") @Pattern(regexp = "(https?://\\S+)?", message = "must be an http(s) URL") String signInUrl) {}
