package io.gshare.api.temporal;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/** @param enabled host the control worker (all workflows, control activities) in this JVM */
@Validated
@ConfigurationProperties(prefix = "gshare.worker", ignoreUnknownFields = false)
public record WorkerProperties(@DefaultValue("true") boolean enabled) {}
