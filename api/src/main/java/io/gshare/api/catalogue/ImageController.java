package io.gshare.api.catalogue;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.support.NewIds;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** The session image catalogue: what a session runs and where its web UI listens. */
@RestController
@RequestMapping("/api/v1/images")
@Tag(name = "catalogue")
class ImageController {

  private final JdbcClient jdbc;
  private final Access access;

  ImageController(JdbcClient jdbc, Access access) {
    this.jdbc = jdbc;
    this.access = access;
  }

  record Image(String id, String name, String reference, int port, String path, String description, boolean active) {}

  /** @param reference an image reference, e.g. registry.example.com/gshare/jupyter:2026.11 */
  record ImageInput(@NotBlank @Size(max = 100) String name,
      @NotBlank @Size(max = 500) @Pattern(regexp = "[^\\s]+", message = "must not contain spaces") String reference,
      @Min(1) @Max(65535) Integer port, @Pattern(regexp = "/.*", message = "must start with /") String path,
      @Size(max = 1000) String description, Boolean active) {}

  record ImageChange(@Size(max = 100) String name, @Size(max = 500) @Pattern(regexp = "[^\\s]+") String reference,
      @Min(1) @Max(65535) Integer port, @Pattern(regexp = "/.*") String path, @Size(max = 1000) String description,
      Boolean active) {}

  record ImageList(List<Image> items) {}

  @GetMapping
  @Operation(summary = "Session images (users: active ones)")
  ImageList list(Caller.User caller) {
    return new ImageList(jdbc.sql("select * from images" + (caller.isAdmin() ? "" : " where active") + " order by name")
        .query(ImageController::map).list());
  }

  @GetMapping("/{id}")
  @Operation(summary = "One image")
  Image get(Caller.User caller, @PathVariable String id) {
    return find(id).filter(i -> i.active() || caller.isAdmin()).orElseThrow(() -> GshareException.notFound("image", id));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Add an image (admins); port defaults to 8888 (Jupyter), path to /")
  Image create(Caller.User caller, @Valid @RequestBody ImageInput in) {
    access.requireAdmin(caller, "image", null);
    String id = NewIds.next("img");
    try {
      jdbc.sql("""
          insert into images (id, name, reference, port, path, description, active)
          values (:id, :name, :ref, :port, :path, :desc, :active)
          """)
          .param("id", id).param("name", in.name()).param("ref", in.reference())
          .param("port", in.port() == null ? 8888 : in.port()).param("path", in.path() == null ? "/" : in.path())
          .param("desc", in.description()).param("active", in.active() == null || in.active())
          .update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "an image named " + in.name() + " already exists");
    }
    return find(id).orElseThrow();
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Change an image (admins)")
  Image update(Caller.User caller, @PathVariable String id, @Valid @RequestBody ImageChange in) {
    access.requireAdmin(caller, "image", id);
    Image i = find(id).orElseThrow(() -> GshareException.notFound("image", id));
    try {
      jdbc.sql("""
          update images set name = :name, reference = :ref, port = :port, path = :path, description = :desc, active = :active
           where id = :id
          """)
          .param("id", id).param("name", in.name() == null ? i.name() : in.name())
          .param("ref", in.reference() == null ? i.reference() : in.reference())
          .param("port", in.port() == null ? i.port() : in.port()).param("path", in.path() == null ? i.path() : in.path())
          .param("desc", in.description() == null ? i.description() : in.description())
          .param("active", in.active() == null ? i.active() : in.active())
          .update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "an image named " + in.name() + " already exists");
    }
    return find(id).orElseThrow();
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Remove an image (admins); sessions keep the reference they ran")
  void delete(Caller.User caller, @PathVariable String id) {
    access.requireAdmin(caller, "image", id);
    if (jdbc.sql("delete from images where id = :id").param("id", id).update() == 0) {
      throw GshareException.notFound("image", id);
    }
  }

  private Optional<Image> find(String id) {
    return jdbc.sql("select * from images where id = :id").param("id", id).query(ImageController::map).optional();
  }

  private static Image map(ResultSet rs, int row) throws SQLException {
    return new Image(rs.getString("id"), rs.getString("name"), rs.getString("reference"), rs.getInt("port"),
        rs.getString("path"), rs.getString("description"), rs.getBoolean("active"));
  }
}
