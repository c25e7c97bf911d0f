package io.gshare.api.temporalgateway;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * @param enabled serve the Temporal gateway, and run local cluster-workers through it
 * @param port its gRPC port; 0 takes a free one (tests)
 * @param bindAddress the interface it listens on
 */
@Validated
@ConfigurationProperties(prefix = "gshare.temporal-gateway", ignoreUnknownFields = false)
public record TemporalGatewayProperties(
    @DefaultValue("false") boolean enabled,
    @DefaultValue("7243") @Min(0) @Max(65535) int port,
    @DefaultValue("0.0.0.0") @NotBlank String bindAddress) {}
