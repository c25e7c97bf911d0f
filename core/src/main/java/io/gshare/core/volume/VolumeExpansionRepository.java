package io.gshare.core.volume;

import io.gshare.core.support.NewIds;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Volume expansion requests: the owner asks, an admin approves or rejects, the volume sync applies an
 * approved size to every claim of the volume. One request per volume is open (requested or approved) at a time.
 */
@Repository
public class VolumeExpansionRepository {

  /**
   * A request, with its volume's name, owner, size and status for the admins' queue.
   *
   * @param sizeGb the size asked for, GiB
   * @param currentSizeGb the volume's size now
   */
  public record Expansion(String id, String volumeId, String volumeName, String ownerId, String volumeStatus,
      int currentSizeGb, int sizeGb, String status, String requestedBy, String reason, String decidedBy, Instant decidedAt,
      Instant appliedAt, Instant createdAt) {

    public boolean is(ExpansionStatus status) {
      return status.wireName().equals(this.status);
    }
  }

  private static final String SELECT = """
      select e.*, v.name as volume_name, v.owner_id, v.status as volume_status, v.size_gb as current_size_gb
        from volume_expansions e join volumes v on v.id = e.volume_id
      """;

  private final JdbcClient jdbc;

  VolumeExpansionRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Oldest first (the admins' queue); {@code status} null lists every request. */
  public List<Expansion> list(String status, String volumeId) {
    return jdbc.sql(SELECT + " where (e.status = :status or :status = '') and (e.volume_id = :volume or :volume = '')"
            + " order by e.created_at, e.id")
        .param("status", status == null ? "" : status).param("volume", volumeId == null ? "" : volumeId)
        .query(VolumeExpansionRepository::map).list();
  }

  public Optional<Expansion> findById(String id) {
    return jdbc.sql(SELECT + " where e.id = :id").param("id", id).query(VolumeExpansionRepository::map).optional();
  }

  /** The volume's open request (requested or approved, not applied yet), if any. */
  public Optional<Expansion> openOf(String volumeId) {
    return jdbc.sql(SELECT + " where e.volume_id = :v and e.status in ('requested', 'approved')").param("v", volumeId)
        .query(VolumeExpansionRepository::map).optional();
  }

  /** The request's volume, read without a lock (to lock the volume first, then the request). */
  public Optional<String> volumeOf(String id) {
    return jdbc.sql("select volume_id from volume_expansions where id = :id").param("id", id).query(String.class).optional();
  }

  /** Locks the request's row until the transaction ends and answers it as it is once locked. */
  public Optional<Expansion> lock(String id) {
    return jdbc.sql(SELECT + " where e.id = :id for update of e").param("id", id).query(VolumeExpansionRepository::map)
        .optional();
  }

  public String insert(String volumeId, String requestedBy, int sizeGb) {
    String id = NewIds.next("vex");
    jdbc.sql("insert into volume_expansions (id, volume_id, requested_by, size_gb) values (:id, :v, :by, :size)")
        .param("id", id).param("v", volumeId).param("by", requestedBy).param("size", sizeGb).update();
    return id;
  }

  /** Approves or rejects a request; {@code reason} is the admin's words (a rejection's why). */
  public void decide(String id, ExpansionStatus status, String decidedBy, String reason) {
    jdbc.sql("""
        update volume_expansions set status = :s, decided_by = :by, decided_at = now(), reason = :reason where id = :id
        """).param("id", id).param("s", status.wireName()).param("by", decidedBy).param("reason", reason).update();
  }

  private static Expansion map(ResultSet rs, int row) throws SQLException {
    return new Expansion(rs.getString("id"), rs.getString("volume_id"), rs.getString("volume_name"), rs.getString("owner_id"),
        rs.getString("volume_status"), rs.getInt("current_size_gb"), rs.getInt("size_gb"), rs.getString("status"),
        rs.getString("requested_by"), rs.getString("reason"), rs.getString("decided_by"), instant(rs, "decided_at"),
        instant(rs, "applied_at"), instant(rs, "created_at"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
