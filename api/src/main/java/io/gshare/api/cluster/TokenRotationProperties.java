package io.gshare.api.cluster;

import io.gshare.workflows.cluster.TokenRotationRequest;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Token rotation settings ({@code gshare.tokens.*}); the operator tokens' lifetime is
 * {@code gshare.security.internal-token-ttl}.
 *
 * @param enabled create the Temporal Schedules {@code token-rotation} and {@code signing-key-rotation} at boot
 * @param rotationInterval how often every attached cluster's operator token is rotated
 * @param signingKeyRotationInterval how often the internal signing key is rotated
 * @param confirmWait how long a rotation waits for each worker to authenticate with its new token
 * @param confirmPoll how often it looks meanwhile
 * @param alertWithin a worker whose current token expires sooner than this and that could not take a new one
 *     raises an admin alert
 * @param retryInterval how often creating the Schedules is tried again while Temporal is not ready
 */
@Validated
@ConfigurationProperties(prefix = "gshare.tokens", ignoreUnknownFields = false)
public record TokenRotationProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("24h") @NotNull @DurationMin(minutes = 1) Duration rotationInterval,
    @DefaultValue("30d") @NotNull @DurationMin(minutes = 1) Duration signingKeyRotationInterval,
    @DefaultValue("3m") @NotNull @DurationMin(seconds = 1) Duration confirmWait,
    @DefaultValue("10s") @NotNull @DurationMin(millis = 100) Duration confirmPoll,
    @DefaultValue("2d") @NotNull @DurationMin(seconds = 0) Duration alertWithin,
    @DefaultValue("60s") @NotNull @DurationMin(millis = 1) Duration retryInterval) {

  /** A rotation of one cluster, or of every attached one when {@code clusterId} is null. */
  public TokenRotationRequest request(String clusterId) {
    return new TokenRotationRequest(clusterId, confirmWait, confirmPoll, alertWithin);
  }
}
