package io.gshare.api.user;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.support.NewIds;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Teams (tenants): what node pools and policies hang on. */
@RestController
@RequestMapping("/api/v1/teams")
@Tag(name = "users")
class TeamController {

  private final JdbcClient jdbc;
  private final Access access;

  TeamController(JdbcClient jdbc, Access access) {
    this.jdbc = jdbc;
    this.access = access;
  }

  record Team(String id, String name) {}

  record NewTeam(@NotBlank @Size(max = 100) String name) {}

  record TeamList(List<Team> items) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create a team (admins)")
  Team create(Caller.User caller, @Valid @RequestBody NewTeam body) {
    access.requireAdmin(caller, "team", null);
    String id = NewIds.next("team");
    try {
      jdbc.sql("insert into teams (id, name) values (:id, :name)").param("id", id).param("name", body.name()).update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "a team named " + body.name() + " already exists");
    }
    return new Team(id, body.name());
  }

  @GetMapping
  @Operation(summary = "List teams (admins)")
  TeamList list(Caller.User caller) {
    access.requireAdmin(caller, "team", null);
    return new TeamList(jdbc.sql("select id, name from teams order by name")
        .query((rs, n) -> new Team(rs.getString("id"), rs.getString("name"))).list());
  }
}
