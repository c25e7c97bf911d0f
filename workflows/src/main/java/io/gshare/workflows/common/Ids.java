package io.gshare.workflows.common;

import java.util.regex.Pattern;

/**
 * Object ids ({@code clu_…}, {@code ses_…}) end up in task-queue names, workflow ids and Kubernetes
 * labels, so they are restricted to characters that are valid in all three.
 */
public final class Ids {

  private static final Pattern VALID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  private Ids() {}

  public static boolean isValid(String id) {
    return id != null && VALID.matcher(id).matches();
  }

  public static String requireValid(String id, String what) {
    if (!isValid(id)) {
      throw new IllegalArgumentException(
          what + " must match " + VALID.pattern() + " (got " + (id == null ? "null" : "'" + id + "'") + ")");
    }
    return id;
  }
}
