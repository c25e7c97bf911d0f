package io.gshare.workflows.kube;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Object names derived from gShare ids. A name is a function of the id alone, so a retried activity finds
 * what an earlier attempt made, and a workflow computes the same name on replay.
 */
public final class KubeNames {

  /** RFC 1123 label, what a Service name must be (and every other name gShare makes is). */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  public static final int MAX_LENGTH = 63;

  private KubeNames() {}

  /** The namespace every session's pod, Service and route live in, in every cluster. */
  public static final String SESSIONS_NAMESPACE = "gshare-sessions";

  /**
   * {@code of("gshare", "ses_k2j8")} → {@code gshare-ses-k2j8}: the prefix, a dash, and the id lowercased with
   * {@code _} as {@code -}.
   *
   * @throws IllegalArgumentException if the result is not an RFC 1123 label of at most 63 characters
   */
  public static String of(String prefix, String id) {
    String name = prefix + "-" + id.replace('_', '-').toLowerCase(Locale.ROOT);
    if (name.length() > MAX_LENGTH || !DNS_LABEL.matcher(name).matches()) {
      throw new IllegalArgumentException("'" + name + "' (from '" + id + "') is not a DNS label of at most "
          + MAX_LENGTH + " characters");
    }
    return name;
  }
}
