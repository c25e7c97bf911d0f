package io.gshare.api.temporal;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where Temporal is and how gShare's workers use it ({@code GSHARE_TEMPORAL_ADDRESS} sets the address).
 *
 * @param stickyScheduleToStart how long a workflow task waits for the worker that cached its workflow
 *     before any worker may take it; the dev runtime sets zero because the embedded server never hands
 *     a sticky task back, so a killed worker would strand its workflows
 * @param workflowCacheSize workflows kept in memory between tasks; 0 disables sticky execution
 */
@Validated
@ConfigurationProperties(prefix = "gshare.temporal", ignoreUnknownFields = false)
public record TemporalProperties(
    @DefaultValue("127.0.0.1:7233") @Pattern(regexp = "[^\\s:/]+:\\d{1,5}", message = "must be host:port") String address,
    @DefaultValue("default") @NotBlank String namespace,
    @DefaultValue("5s") Duration stickyScheduleToStart,
    @DefaultValue("600") int workflowCacheSize) {}
