package io.gshare.api.user;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.user.TeamRepository;
import io.gshare.core.user.TeamRepository.Team;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.http.HttpStatus;
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

  private final TeamRepository teams;

  TeamController(TeamRepository teams) {
    this.teams = teams;
  }

  record NewTeam(@NotBlank @Size(max = 100) String name) {}

  record TeamList(List<Team> items) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create a team (admins)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  Team create(Caller.User caller, @Valid @RequestBody NewTeam body) {
    return teams.create(body.name());
  }

  @GetMapping
  @Operation(summary = "List teams (admins)")
  @AdminOnly
  TeamList list(Caller.User caller) {
    return new TeamList(teams.list());
  }
}
