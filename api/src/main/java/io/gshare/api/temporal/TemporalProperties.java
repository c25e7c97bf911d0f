package io.gshare.api.temporal;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where Temporal is and how gShare's workers use it ({@code GSHARE_TEMPORAL_ADDRESS} sets the address).
 *
 * @param stickyScheduleToStart how long a workflow task waits for the worker that cached its workflow
 *     before any worker may take it. A worker that stops cleanly hands its sticky tasks back at once;
 *     one that is killed holds them this long, so it bounds how soon another api replica takes over
 *     the workflows the dead one had cached
 * @param workflowCacheSize workflows kept in memory between tasks; 0 disables sticky execution
 * @param uiUrl the Temporal Web UI's base URL, for the deep links of operation views; blank leaves them out
 */
@Validated
@ConfigurationProperties(prefix = "gshare.temporal", ignoreUnknownFields = false)
public record TemporalProperties(
    @DefaultValue("127.0.0.1:7233") @Pattern(regexp = "[^\\s:/]+:\\d{1,5}", message = "must be host:port") String address,
    @DefaultValue("default") @NotBlank String namespace,
    @DefaultValue("5s") @NotNull @DurationMin(millis = 1) Duration stickyScheduleToStart,
    @DefaultValue("600") @PositiveOrZero int workflowCacheSize,
    @DefaultValue("") @Pattern(regexp = "(https?://[^\\s]+[^/\\s])?", message = "must be an http(s) URL without a trailing slash") String uiUrl) {}
