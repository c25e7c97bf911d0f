package io.gshare.core.support;

import java.security.SecureRandom;

/** New object ids: a kind prefix and 16 random base-32 characters, e.g. {@code usr_k2j8…}. */
public final class NewIds {

  private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  private NewIds() {}

  public static String next(String prefix) {
    char[] suffix = new char[16];
    for (int i = 0; i < suffix.length; i++) {
      suffix[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
    }
    return prefix + "_" + new String(suffix);
  }
}
