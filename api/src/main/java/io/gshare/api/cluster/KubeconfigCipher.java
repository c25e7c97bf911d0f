package io.gshare.api.cluster;

import io.gshare.api.security.DataKey;
import java.nio.charset.StandardCharsets;
import org.springframework.stereotype.Component;

/**
 * Kubeconfigs at rest: AES-256-GCM with a random 96-bit nonce per value, the cluster id as associated
 * data (a ciphertext copied onto another cluster's row does not decrypt). The key is
 * the {@link DataKey} ({@code kubeconfig.key} in the key directory).
 */
@Component
public class KubeconfigCipher {

  private final DataKey key;

  KubeconfigCipher(DataKey key) {
    this.key = key;
  }

  public byte[] encrypt(String clusterId, String kubeconfig) {
    return key.seal(clusterId, kubeconfig.getBytes(StandardCharsets.UTF_8));
  }

  public String decrypt(String clusterId, byte[] stored) {
    try {
      return new String(key.open(clusterId, stored), StandardCharsets.UTF_8);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("the kubeconfig of " + clusterId + " does not decrypt with " + DataKey.FILE
          + " (was the key replaced?)", e);
    }
  }
}
