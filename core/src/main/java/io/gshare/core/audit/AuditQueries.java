package io.gshare.core.audit;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Reads of the audit log (its writes are {@link AuditLog}, which deduplicates them). */
@Repository
public class AuditQueries {

  public record AuditEvent(long id, String action, String outcome, String actor, String objectKind, String objectId,
      String reason, int occurrences, Instant occurredAt, Instant lastAt) {}

  /** Each field null = any; {@code since} matches events still recurring then, {@code until} those that began before. */
  public record Filter(String action, String actor, String objectKind, String objectId, Instant since, Instant until) {}

  private final JdbcClient jdbc;

  AuditQueries(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Newest first. */
  public List<AuditEvent> find(Filter filter, int limit) {
    StringBuilder sql = new StringBuilder("select * from audit_events where true");
    Map<String, Object> params = new LinkedHashMap<>();
    equal(sql, params, "action", filter.action());
    equal(sql, params, "actor", filter.actor());
    equal(sql, params, "object_kind", filter.objectKind());
    equal(sql, params, "object_id", filter.objectId());
    if (filter.since() != null) {
      sql.append(" and last_at >= :since");
      params.put("since", Timestamp.from(filter.since()));
    }
    if (filter.until() != null) {
      sql.append(" and occurred_at < :until");
      params.put("until", Timestamp.from(filter.until()));
    }
    sql.append(" order by occurred_at desc, id desc limit :limit");
    params.put("limit", limit);
    return jdbc.sql(sql.toString()).params(params).query(AuditQueries::map).list();
  }

  private static void equal(StringBuilder sql, Map<String, Object> params, String column, String value) {
    if (value != null) {
      sql.append(" and ").append(column).append(" = :").append(column);
      params.put(column, value);
    }
  }

  private static AuditEvent map(ResultSet rs, int row) throws SQLException {
    return new AuditEvent(rs.getLong("id"), rs.getString("action"), rs.getString("outcome"), rs.getString("actor"),
        rs.getString("object_kind"), rs.getString("object_id"), rs.getString("reason"), rs.getInt("occurrences"),
        rs.getTimestamp("occurred_at").toInstant(), rs.getTimestamp("last_at").toInstant());
  }
}
