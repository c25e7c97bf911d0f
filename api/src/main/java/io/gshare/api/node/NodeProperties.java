package io.gshare.api.node;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param staleAfter a node whose worker has not reported it for this long is offline (NODE_STALE_SEC)
 * @param sweepInterval how often offline nodes are looked for and alerted
 */
@ConfigurationProperties(prefix = "gshare.node", ignoreUnknownFields = false)
public record NodeProperties(@DefaultValue("300s") Duration staleAfter, @DefaultValue("30s") Duration sweepInterval) {}
