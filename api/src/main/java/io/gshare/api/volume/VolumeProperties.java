package io.gshare.api.volume;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Volume settings ({@code gshare.volumes.*}).
 *
 * @param reclaimGrace how long a deleted volume can be restored before its reclaim workflow removes its claims
 *     ({@code GSHARE_VOLUME_RECLAIM_GRACE_HOURS}, the chart's {@code api.volumeReclaimGraceHours}); {@code 0s}
 *     reclaims at once
 */
@Validated
@ConfigurationProperties(prefix = "gshare.volumes", ignoreUnknownFields = false)
public record VolumeProperties(@DefaultValue("24h") @NotNull @DurationMin(seconds = 0) Duration reclaimGrace) {}
