package io.gshare.api.security;

import com.nimbusds.jose.JOSEObjectType;

/**
 * The two kinds of token the control plane signs. Each has its own key set, {@code typ} and
 * audience, so one can never pass for the other (RFC 8725 §3.11, §3.12).
 */
public enum TokenKind {
  /** A user's API token (RFC 9068 access-token type). */
  USER(new JOSEObjectType("at+jwt"), "gshare-api", "user-signing"),
  /** A cluster-worker's token for {@code /internal}, subject {@code operator:<clusterId>}. */
  INTERNAL(new JOSEObjectType("gshare-internal+jwt"), "gshare-internal", "internal-signing");

  private final JOSEObjectType type;
  private final String audience;
  private final String keySetName;

  TokenKind(JOSEObjectType type, String audience, String keySetName) {
    this.type = type;
    this.audience = audience;
    this.keySetName = keySetName;
  }

  public JOSEObjectType type() {
    return type;
  }

  public String audience() {
    return audience;
  }

  public String keySetFile() {
    return keySetName + ".jwks.json";
  }

  public String keySetName() {
    return keySetName;
  }
}
