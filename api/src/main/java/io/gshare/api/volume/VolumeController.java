package io.gshare.api.volume;

import io.gshare.core.error.GshareException;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "volumes")
class VolumeController {

  private final JdbcClient jdbc;
  private final Access access;

  VolumeController(JdbcClient jdbc, Access access) {
    this.jdbc = jdbc;
    this.access = access;
  }

  record Volume(String id, String ownerId, String name, String storagePoolId, int sizeGb, Integer requestedSizeGb,
      String status, Long usedBytes, Instant createdAt) {}

  record VolumeList(List<Volume> items) {}

  @GetMapping("/api/v1/volumes")
  @Operation(summary = "Your volumes (admins: everyone's)")
  VolumeList list(Caller.User caller) {
    String sql = "select * from volumes where deleted_at is null" + (caller.isAdmin() ? "" : " and owner_id = :owner")
        + " order by created_at desc";
    JdbcClient.StatementSpec spec = jdbc.sql(sql);
    if (!caller.isAdmin()) {
      spec = spec.param("owner", caller.userId());
    }
    return new VolumeList(spec.query(VolumeController::map).list());
  }

  @GetMapping("/api/v1/volumes/{id}")
  @Operation(summary = "One volume (yours, or any for admins)")
  Volume get(Caller.User caller, @PathVariable String id) {
    Volume volume = jdbc.sql("select * from volumes where id = :id and deleted_at is null").param("id", id)
        .query(VolumeController::map).optional().orElseThrow(() -> GshareException.notFound("volume", id));
    access.requireOwnerOrAdmin(caller, "volume", id, volume.ownerId());
    return volume;
  }

  private static Volume map(ResultSet rs, int row) throws SQLException {
    Timestamp created = rs.getTimestamp("created_at");
    return new Volume(rs.getString("id"), rs.getString("owner_id"), rs.getString("name"), rs.getString("storage_pool_id"),
        rs.getInt("size_gb"), (Integer) rs.getObject("requested_size_gb"), rs.getString("status"),
        (Long) rs.getObject("used_bytes"), created == null ? null : created.toInstant());
  }
}
