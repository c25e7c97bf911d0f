package io.gshare.core.user;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import java.util.List;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Teams: names unique. */
@Repository
public class TeamRepository {

  public record Team(String id, String name) {}

  private final JdbcClient jdbc;

  TeamRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** @throws GshareException 409 when the name is taken */
  public Team create(String name) {
    String id = NewIds.next("team");
    try {
      jdbc.sql("insert into teams (id, name) values (:id, :name)").param("id", id).param("name", name).update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "a team named " + name + " already exists");
    }
    return new Team(id, name);
  }

  public List<Team> list() {
    return jdbc.sql("select id, name from teams order by name")
        .query((rs, n) -> new Team(rs.getString("id"), rs.getString("name"))).list();
  }

  public boolean exists(String teamId) {
    return jdbc.sql("select count(*) from teams where id = :t").param("t", teamId).query(Integer.class).single() > 0;
  }
}
