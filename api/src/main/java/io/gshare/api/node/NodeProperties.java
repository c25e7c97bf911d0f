package io.gshare.api.node;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * @param staleAfter a node whose worker has not reported it for this long is offline
 *     ({@code GSHARE_NODE_STALE_SEC}); whole seconds, since the sweep compares seconds
 * @param sweepInterval how often offline nodes are looked for and alerted: the interval of the Temporal Schedule
 *     {@code node-liveness}; whole seconds, at least one
 */
@Validated
@ConfigurationProperties(prefix = "gshare.node", ignoreUnknownFields = false)
public record NodeProperties(
    @DefaultValue("300s") @NotNull @DurationMin(seconds = 1) Duration staleAfter,
    @DefaultValue("30s") @NotNull @DurationMin(seconds = 1) Duration sweepInterval) {}
