package io.gshare.api.security;

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
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key that seals what the control plane keeps secret in PostgreSQL (kubeconfigs, the shared signing key sets):
 * AES-256-GCM, a random 96-bit nonce per value, and the value's owner as associated data, so a ciphertext copied onto
 * another row does not open. It is {@code kubeconfig.key} in the key directory (its historical name): a mounted
 * Secret in production, generated in dev. With it outside the database, a copy of the database signs nothing and
 * reads no kubeconfig.
 */
public final class DataKey {

  public static final String FILE = "kubeconfig.key";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKeySpec key;
  private final SecureRandom random = new SecureRandom();

  private DataKey(byte[] raw) {
    this.key = new SecretKeySpec(raw, "AES");
  }

  /** Reads {@code <keyDir>/kubeconfig.key} (base64 of 32 bytes), creating it first when {@code generate}. */
  public static DataKey open(Path keyDir, boolean generate) {
    Path file = keyDir.resolve(FILE);
    try {
      if (!Files.exists(file)) {
        if (!generate) {
          throw new IllegalStateException("no data key at " + file + " (the key Secret's " + FILE + ")");
        }
        byte[] fresh = new byte[32];
        new SecureRandom().nextBytes(fresh);
        SecretFiles.write(file, Base64.getEncoder().encodeToString(fresh));
      }
      byte[] raw = Base64.getDecoder().decode(Files.readString(file).trim());
      if (raw.length != 32) {
        throw new IllegalStateException(file + " must hold a base64 AES-256 key (32 bytes)");
      }
      return new DataKey(raw);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(file + " is not base64: " + e.getMessage(), e);
    }
  }

  /** Nonce, then ciphertext and tag. */
  public byte[] seal(String owner, byte[] plain) {
    try {
      byte[] nonce = new byte[NONCE_BYTES];
      random.nextBytes(nonce);
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(owner.getBytes(StandardCharsets.UTF_8));
      byte[] sealed = cipher.doFinal(plain);
      return ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not seal a value of " + owner, e);
    }
  }

  /** The plain value; an {@link IllegalStateException} naming the key file when this key did not seal it. */
  public byte[] open(String owner, byte[] stored) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, 0, NONCE_BYTES));
      cipher.updateAAD(owner.getBytes(StandardCharsets.UTF_8));
      return cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES);
    } catch (AEADBadTagException e) {
      throw new IllegalStateException("the stored value of " + owner + " does not open with " + FILE
          + " (was the key replaced?)", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not open the stored value of " + owner, e);
    }
  }
}
