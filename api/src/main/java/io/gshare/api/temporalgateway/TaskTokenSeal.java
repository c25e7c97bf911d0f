package io.gshare.api.temporalgateway;

import io.gshare.workflows.common.Ids;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the activity task tokens the gateway hands a cluster's worker, so that a token is honoured only from the
 * cluster that received it. A sealed token is {@code version || HMAC-SHA256(clusterKey, upstream)[0..16) ||
 * upstream}; the cluster's key is {@code HMAC-SHA256(secret, "gshare-task-token/" + clusterId)}. Every replica that
 * holds the secret unseals what any replica sealed, so they share no state; a token captured from cluster B and sent
 * with cluster A's credentials fails the check, as does one changed by a single bit.
 *
 * <p>The upstream token is not hidden (it names the worker's own workflow and activity, which the worker ran):
 * sealing is about who may answer for a task, not about secrecy.
 */
public final class TaskTokenSeal {

  static final byte VERSION = 1;
  static final int MAC_BYTES = 16;
  private static final String ALGORITHM = "HmacSHA256";
  /** At least 256 bits: the key of every cluster's seal derives from it. */
  static final int MIN_SECRET_BYTES = 32;

  private final byte[] secret;

  public TaskTokenSeal(byte[] secret) {
    if (secret == null || secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException("the task-token secret must be at least " + MIN_SECRET_BYTES + " bytes");
    }
    this.secret = secret.clone();
  }

  /** The token to hand {@code clusterId}'s worker in place of {@code upstream}. */
  public byte[] seal(String clusterId, byte[] upstream) {
    byte[] mac = mac(clusterId, upstream);
    byte[] sealed = new byte[1 + MAC_BYTES + upstream.length];
    sealed[0] = VERSION;
    System.arraycopy(mac, 0, sealed, 1, MAC_BYTES);
    System.arraycopy(upstream, 0, sealed, 1 + MAC_BYTES, upstream.length);
    return sealed;
  }

  /**
   * The upstream token inside {@code sealed}, when {@code clusterId} is the cluster it was sealed for.
   *
   * @throws ForeignTaskToken when it was sealed for another cluster, with another secret, changed, or is no sealed
   *     token at all
   */
  public byte[] unseal(String clusterId, byte[] sealed) {
    if (sealed == null || sealed.length <= 1 + MAC_BYTES || sealed[0] != VERSION) {
      throw new ForeignTaskToken("the task token is not one this gateway handed out");
    }
    byte[] upstream = Arrays.copyOfRange(sealed, 1 + MAC_BYTES, sealed.length);
    byte[] expected = Arrays.copyOf(mac(clusterId, upstream), MAC_BYTES);
    if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(sealed, 1, 1 + MAC_BYTES))) {
      throw new ForeignTaskToken("the task token was handed to another cluster's worker, not to " + clusterId);
    }
    return upstream;
  }

  private byte[] mac(String clusterId, byte[] upstream) {
    Ids.requireValid(clusterId, "clusterId");
    try {
      Mac derive = Mac.getInstance(ALGORITHM);
      derive.init(new SecretKeySpec(secret, ALGORITHM));
      byte[] clusterKey = derive.doFinal(("gshare-task-token/" + clusterId).getBytes(StandardCharsets.UTF_8));
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(clusterKey, ALGORITHM));
      return mac.doFinal(upstream);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  /** A task token this cluster may not answer for. */
  public static final class ForeignTaskToken extends RuntimeException {
    ForeignTaskToken(String message) {
      super(message);
    }
  }
}
