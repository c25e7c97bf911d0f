package io.gshare.workflows.cluster;

/**
 * What the control plane knows of a cluster's operator tokens.
 *
 * @param jti the token last written into the cluster's Secret; null when none was recorded
 * @param expiresAt its expiry, epoch millis; 0 when unknown
 * @param seenJti the token the cluster's worker last authenticated with on /internal; null when never seen
 * @param seenExpiresAt that token's expiry, epoch millis; 0 when unknown
 */
public record OperatorTokenState(String clusterId, String jti, long expiresAt, String seenJti, long seenExpiresAt) {}
