package io.gshare.core.user;

import java.util.Arrays;
import java.util.Locale;

/**
 * A user's role; the wire and database values are the lower-case names ({@code users.role}). Each role
 * includes the ones below it: a super admin is an admin, an admin is a user.
 */
public enum Role {
  USER,
  ADMIN,
  SUPER_ADMIN;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether this role grants everything {@code other} grants. */
  public boolean includes(Role other) {
    return compareTo(other) >= 0;
  }

  /** @throws IllegalArgumentException for a value that is not a role */
  public static Role fromWire(String value) {
    return Arrays.stream(values()).filter(r -> r.wireName().equals(value)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown role '" + value + "' (super_admin, admin or user)"));
  }
}
