package io.gshare.workflows.cluster;

/**
 * An operator token written into a cluster's Secret, as workflow history may see it: its id and
 * lifetime, never the token.
 *
 * @param issuedAt epoch millis
 * @param expiresAt epoch millis
 */
public record IssuedToken(String clusterId, String jti, long issuedAt, long expiresAt) {}
