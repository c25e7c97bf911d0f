package io.gshare.api.audit;

import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.audit.AuditQueries;
import io.gshare.core.audit.AuditQueries.AuditEvent;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "audit")
class AuditController {

  private final AuditQueries audit;

  AuditController(AuditQueries audit) {
    this.audit = audit;
  }

  record AuditPage(List<AuditEvent> items) {}

  @GetMapping("/api/v1/audit")
  @Operation(summary = "Audit events, newest first (admins); filter by action, actor, object, time")
  @AdminOnly
  AuditPage list(Caller.User caller,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String actor,
      @RequestParam(name = "object_kind", required = false) String objectKind,
      @RequestParam(name = "object_id", required = false) String objectId,
      @RequestParam(required = false) String since,
      @RequestParam(required = false) String until,
      @RequestParam(defaultValue = "100") int limit) {
    if (limit < 1 || limit > 1000) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    AuditQueries.Filter filter = new AuditQueries.Filter(action, actor, objectKind, objectId,
        since == null ? null : instant("since", since), until == null ? null : instant("until", until));
    return new AuditPage(audit.find(filter, limit));
  }

  private static Instant instant(String name, String value) {
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, name + " must be an RFC 3339 instant, e.g. 2026-12-02T10:00:00Z");
    }
  }
}
