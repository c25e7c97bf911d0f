package io.gshare.api.security;

import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import java.util.Objects;
import org.springframework.stereotype.Component;

/**
 * Object-level authorization. Another user's object answers 404 (its existence is not disclosed), an
 * admin-only action answers 403; both are audited as {@code access.denied}.
 */
@Component
public class Access {

  private final AuditLog audit;

  Access(AuditLog audit) {
    this.audit = audit;
  }

  public void requireAdmin(Caller.User caller, String objectKind, String objectId) {
    if (!caller.isAdmin()) {
      audit.denied(caller.actor(), objectKind, objectId, "requires the admin role");
      throw new GshareException(ProblemCode.FORBIDDEN, "this action requires the admin role");
    }
  }

  public void requireSuperAdmin(Caller.User caller, String objectKind, String objectId) {
    if (!caller.isSuperAdmin()) {
      audit.denied(caller.actor(), objectKind, objectId, "requires the super_admin role");
      throw new GshareException(ProblemCode.FORBIDDEN, "this action requires the super_admin role");
    }
  }

  /** Passes for the owner and for admins; anyone else gets the same 404 as for a missing object. */
  public void requireOwnerOrAdmin(Caller.User caller, String objectKind, String objectId, String ownerId) {
    if (caller.isAdmin() || Objects.equals(caller.userId(), ownerId)) {
      return;
    }
    audit.denied(caller.actor(), objectKind, objectId, "not the owner");
    throw GshareException.notFound(objectKind, objectId);
  }

  /** Passes for the owner only (admins included: what is private to a user stays theirs); others get a 404. */
  public void requireOwner(Caller.User caller, String objectKind, String objectId, String ownerId) {
    if (Objects.equals(caller.userId(), ownerId)) {
      return;
    }
    audit.denied(caller.actor(), objectKind, objectId, "not the owner");
    throw GshareException.notFound(objectKind, objectId);
  }

  /** An operator may touch its own cluster's objects only: 403, audited, and nothing written. */
  public void requireSameCluster(Caller.Operator caller, String objectKind, String objectId, String objectClusterId) {
    if (!caller.clusterId().equals(objectClusterId)) {
      audit.denied(caller.actor(), objectKind, objectId,
          objectClusterId == null ? "unknown to this cluster" : "belongs to another cluster");
      throw new GshareException(ProblemCode.FORBIDDEN,
          objectKind + " " + objectId + " is not in cluster " + caller.clusterId());
    }
  }
}
