package io.gshare.core.catalogue;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Session images: names unique; a removed image leaves sessions the reference they ran. */
@Repository
public class ImageRepository {

  public record Image(String id, String name, String reference, int port, String path, String description, boolean active) {}

  private final JdbcClient jdbc;

  ImageRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public List<Image> list(boolean activeOnly) {
    return jdbc.sql("select * from images" + (activeOnly ? " where active" : "") + " order by name")
        .query(ImageRepository::map).list();
  }

  public Optional<Image> findById(String id) {
    return jdbc.sql("select * from images where id = :id").param("id", id).query(ImageRepository::map).optional();
  }

  /** Creates the image under a new id ({@code image.id()} is ignored); 409 when the name is taken. */
  public Image create(Image image) {
    String id = NewIds.next("img");
    try {
      jdbc.sql("""
          insert into images (id, name, reference, port, path, description, active)
          values (:id, :name, :ref, :port, :path, :desc, :active)
          """)
          .param("id", id).param("name", image.name()).param("ref", image.reference()).param("port", image.port())
          .param("path", image.path()).param("desc", image.description()).param("active", image.active())
          .update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "an image named " + image.name() + " already exists");
    }
    return findById(id).orElseThrow();
  }

  /** Writes every field of {@code image}; 409 when the name is taken. */
  public Image update(Image image) {
    try {
      jdbc.sql("""
          update images set name = :name, reference = :ref, port = :port, path = :path, description = :desc, active = :active
           where id = :id
          """)
          .param("id", image.id()).param("name", image.name()).param("ref", image.reference()).param("port", image.port())
          .param("path", image.path()).param("desc", image.description()).param("active", image.active())
          .update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "an image named " + image.name() + " already exists");
    }
    return findById(image.id()).orElseThrow();
  }

  /** False when there was no such image. */
  public boolean delete(String id) {
    return jdbc.sql("delete from images where id = :id").param("id", id).update() > 0;
  }

  private static Image map(ResultSet rs, int row) throws SQLException {
    return new Image(rs.getString("id"), rs.getString("name"), rs.getString("reference"), rs.getInt("port"),
        rs.getString("path"), rs.getString("description"), rs.getBoolean("active"));
  }
}
