package io.gshare.api.temporalgateway;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * @param enabled serve the Temporal gateway, and run local cluster-workers through it
 * @param port its gRPC port; 0 takes a free one (tests)
 * @param bindAddress the interface it listens on
 * @param tokenCache how long a verified operator token is taken without verifying it again (a token expired or a
 *     cluster detached is still taken that long); zero verifies every call
 */
@Validated
@ConfigurationProperties(prefix = "gshare.temporal-gateway", ignoreUnknownFields = false)
public record TemporalGatewayProperties(
    @DefaultValue("false") boolean enabled,
    @DefaultValue("7243") @Min(0) @Max(65535) int port,
    @DefaultValue("0.0.0.0") @NotBlank String bindAddress,
    @DefaultValue("5s") @NotNull @DurationMin(seconds = 0) @DurationMax(minutes = 1) Duration tokenCache) {}
