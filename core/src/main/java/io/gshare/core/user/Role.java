package io.gshare.core.user;

import io.gshare.workflows.common.WireEnum;

/**
 * A user's role; the wire and database values are the lower-case names ({@code users.role}). Each role
 * includes the ones below it: a super admin is an admin, an admin is a user.
 */
public enum Role implements WireEnum {
  USER,
  ADMIN,
  SUPER_ADMIN;

  /** Whether this role grants everything {@code other} grants. */
  public boolean includes(Role other) {
    return compareTo(other) >= 0;
  }

  /** @throws IllegalArgumentException for a value that is not a role */
  public static Role fromWire(String value) {
    return WireEnum.require(Role.class, value, "role");
  }
}
