package io.gshare.core.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The one-time codes that hand a browser's sign-in on (to a session's domain, to the CLI): 192 random bits,
 * base64url, kept only as their SHA-256.
 */
public final class OneTimeCodes {

  private static final SecureRandom RANDOM = new SecureRandom();

  private OneTimeCodes() {}

  /** A fresh code, URL-safe. */
  public static String newCode() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** What is stored of a code: its SHA-256, in hex. */
  public static String hash(String code) {
    return HexFormat.of().formatHex(sha256(code));
  }

  /** RFC 7636's S256 challenge of a PKCE verifier: base64url(SHA-256(verifier)), unpadded. */
  public static String challengeOf(String verifier) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(verifier));
  }

  private static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
