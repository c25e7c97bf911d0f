package io.gshare.api.session;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Metering settings ({@code gshare.metering.*}).
 *
 * @param enabled create the metering sweep's Temporal Schedule at boot
 * @param retryInterval how often creating it is tried again while Temporal is not ready
 */
@Validated
@ConfigurationProperties(prefix = "gshare.metering", ignoreUnknownFields = false)
public record MeteringProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("60s") @NotNull @DurationMin(millis = 1) Duration retryInterval) {}
