package io.gshare.api.audit;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "audit")
class AuditController {

  private final JdbcClient jdbc;
  private final Access access;

  AuditController(JdbcClient jdbc, Access access) {
    this.jdbc = jdbc;
    this.access = access;
  }

  record AuditEvent(long id, String action, String outcome, String actor, String objectKind, String objectId,
      String reason, int occurrences, Instant occurredAt, Instant lastAt) {}

  record AuditPage(List<AuditEvent> items) {}

  @GetMapping("/api/v1/audit")
  @Operation(summary = "Audit events, newest first (admins); filter by action, actor, object, time")
  AuditPage list(Caller.User caller,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String actor,
      @RequestParam(name = "object_kind", required = false) String objectKind,
      @RequestParam(name = "object_id", required = false) String objectId,
      @RequestParam(required = false) String since,
      @RequestParam(required = false) String until,
      @RequestParam(defaultValue = "100") int limit) {
    access.requireAdmin(caller, "audit", null);
    if (limit < 1 || limit > 1000) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    StringBuilder sql = new StringBuilder("select * from audit_events where true");
    Map<String, Object> params = new LinkedHashMap<>();
    filter(sql, params, "action", action);
    filter(sql, params, "actor", actor);
    filter(sql, params, "object_kind", objectKind);
    filter(sql, params, "object_id", objectId);
    if (since != null) {
      sql.append(" and last_at >= :since");
      params.put("since", java.sql.Timestamp.from(instant("since", since)));
    }
    if (until != null) {
      sql.append(" and occurred_at < :until");
      params.put("until", java.sql.Timestamp.from(instant("until", until)));
    }
    sql.append(" order by occurred_at desc, id desc limit :limit");
    params.put("limit", limit);
    List<AuditEvent> items = new ArrayList<>(jdbc.sql(sql.toString()).params(params).query(AuditController::map).list());
    return new AuditPage(items);
  }

  private static void filter(StringBuilder sql, Map<String, Object> params, String column, String value) {
    if (value != null) {
      sql.append(" and ").append(column).append(" = :").append(column);
      params.put(column, value);
    }
  }

  private static Instant instant(String name, String value) {
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, name + " must be an RFC 3339 instant, e.g. 2026-12-02T10:00:00Z");
    }
  }

  private static AuditEvent map(ResultSet rs, int row) throws SQLException {
    return new AuditEvent(rs.getLong("id"), rs.getString("action"), rs.getString("outcome"), rs.getString("actor"),
        rs.getString("object_kind"), rs.getString("object_id"), rs.getString("reason"), rs.getInt("occurrences"),
        rs.getTimestamp("occurred_at").toInstant(), rs.getTimestamp("last_at").toInstant());
  }
}
