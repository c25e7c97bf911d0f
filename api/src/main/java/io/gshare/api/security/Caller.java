package io.gshare.api.security;

import io.gshare.core.user.Role;

/** Who made a request, as established by a verified token. */
public sealed interface Caller permits Caller.User, Caller.Operator {

  /** How the caller appears in the audit log. */
  String actor();

  /** A person, with the role and team read from Postgres at request time (a demotion takes effect at once). */
  record User(String userId, Role role, String teamId, String tokenId) implements Caller {

    public boolean isAdmin() {
      return role.includes(Role.ADMIN);
    }

    public boolean isSuperAdmin() {
      return role.includes(Role.SUPER_ADMIN);
    }

    @Override
    public String actor() {
      return "user:" + userId;
    }
  }

  /** A cluster-worker, scoped to its one cluster by the token's subject {@code operator:<clusterId>}. */
  record Operator(String clusterId) implements Caller {

    @Override
    public String actor() {
      return "operator:" + clusterId;
    }
  }
}
