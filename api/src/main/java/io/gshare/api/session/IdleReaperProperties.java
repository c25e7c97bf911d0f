package io.gshare.api.session;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Idle reaper settings ({@code gshare.idle.*}); the timeouts themselves are the policies'.
 *
 * @param enabled create the Temporal Schedule {@code idle-reaper} at boot
 * @param interval how often the sweep runs
 * @param staleAfter activity samples older than this, or a hole in them this long, are not a measurement: a
 *     session is not idle for the reaper until its worker reports again
 * @param retryInterval how often creating the Schedule is tried again while Temporal is not ready
 */
@Validated
@ConfigurationProperties(prefix = "gshare.idle", ignoreUnknownFields = false)
public record IdleReaperProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("60s") @NotNull @DurationMin(seconds = 1) Duration interval,
    @DefaultValue("2m") @NotNull @DurationMin(seconds = 1) Duration staleAfter,
    @DefaultValue("60s") @NotNull @DurationMin(millis = 1) Duration retryInterval) {}
