package io.gshare.api.temporal;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/** @param enabled host the control worker (all workflows, control activities) in this JVM */
@ConfigurationProperties(prefix = "gshare.worker", ignoreUnknownFields = false)
public record WorkerProperties(@DefaultValue("true") boolean enabled) {}
