package io.gshare.api.session;

import io.gshare.api.error.GshareException;
import io.gshare.api.error.ProblemCode;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "sessions")
class SessionController {

  private final SessionRepository sessions;
  private final Access access;

  SessionController(SessionRepository sessions, Access access) {
    this.sessions = sessions;
    this.access = access;
  }

  record SessionList(List<SessionRepository.Session> items) {}

  @GetMapping("/api/v1/sessions")
  @Operation(summary = "Your sessions; admins see all and may filter by cluster, node, state and user")
  SessionList list(Caller.User caller,
      @RequestParam(name = "user_id", required = false) String userId,
      @RequestParam(name = "cluster_id", required = false) String clusterId,
      @RequestParam(name = "node_id", required = false) String nodeId,
      @RequestParam(required = false) String state,
      @RequestParam(defaultValue = "100") int limit) {
    if (limit < 1 || limit > 1000) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    boolean othersAsked = (userId != null && !userId.equals(caller.userId())) || clusterId != null || nodeId != null;
    if (othersAsked && !caller.isAdmin()) {
      access.requireAdmin(caller, "session", null);
    }
    String owner = caller.isAdmin() ? userId : caller.userId();
    return new SessionList(sessions.find(new SessionRepository.Filter(owner, clusterId, nodeId, state), limit));
  }

  @GetMapping("/api/v1/sessions/{id}")
  @Operation(summary = "One session: state, URL, node, GPUs (yours, or any for admins)")
  SessionRepository.Session get(Caller.User caller, @PathVariable String id) {
    SessionRepository.Session session = sessions.findById(id).orElseThrow(() -> GshareException.notFound("session", id));
    access.requireOwnerOrAdmin(caller, "session", id, session.userId());
    return session;
  }
}
