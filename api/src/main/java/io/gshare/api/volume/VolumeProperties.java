package io.gshare.api.volume;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
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
 * @param defaultStorageClass the StorageClass a volume's claim asks for when neither its pool nor its cluster
 *     ({@code storage_settings.volume_storage_class}) names one (the chart's {@code operator.volumeStorageClass});
 *     empty: the cluster's default class
 */
@Validated
@ConfigurationProperties(prefix = "gshare.volumes", ignoreUnknownFields = false)
public record VolumeProperties(
    @DefaultValue("24h") @NotNull @DurationMin(seconds = 0) Duration reclaimGrace,
    @DefaultValue("") @Pattern(regexp = "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?",
        message = "must be a StorageClass name") String defaultStorageClass) {}
