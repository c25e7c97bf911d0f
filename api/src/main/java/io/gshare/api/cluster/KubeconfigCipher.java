package io.gshare.api.cluster;

import io.gshare.api.security.SecurityProperties;
import io.gshare.api.support.SecretFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.stereotype.Component;

/**
 * Kubeconfigs at rest: AES-256-GCM with a random 96-bit nonce per value, the cluster id as associated
 * data (a ciphertext copied onto another cluster's row does not decrypt). The key is
 * {@code kubeconfig.key} in the key directory, generated in dev like the signing keys.
 */
@Component
public class KubeconfigCipher {

  static final String KEY_FILE = "kubeconfig.key";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKey key;
  private final SecureRandom random = new SecureRandom();

  KubeconfigCipher(SecurityProperties properties) {
    this.key = loadOrCreate(properties.keyDir().resolve(KEY_FILE), properties.generateMissingKeys());
  }

  public byte[] encrypt(String clusterId, String kubeconfig) {
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      random.nextBytes(nonce);
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(clusterId.getBytes(StandardCharsets.UTF_8));
      byte[] sealed = cipher.doFinal(kubeconfig.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not encrypt a kubeconfig", e);
    }
  }

  public String decrypt(String clusterId, byte[] stored) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, 0, NONCE_BYTES));
      cipher.updateAAD(clusterId.getBytes(StandardCharsets.UTF_8));
      return new String(cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES), StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the kubeconfig of " + clusterId + " does not decrypt with " + KEY_FILE
          + " (was the key replaced?)", e);
    }
  }

  private static SecretKey loadOrCreate(Path file, boolean generate) {
    try {
      if (!Files.exists(file)) {
        if (!generate) {
          throw new IllegalStateException("no kubeconfig encryption key at " + file);
        }
        KeyGenerator generator = KeyGenerator.getInstance("AES");
        generator.init(256);
        SecretFiles.write(file, Base64.getEncoder().encodeToString(generator.generateKey().getEncoded()));
      }
      byte[] raw = Base64.getDecoder().decode(Files.readString(file).trim());
      if (raw.length != 32) {
        throw new IllegalStateException(file + " must hold a base64 AES-256 key (32 bytes)");
      }
      return new SecretKeySpec(raw, "AES");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
