package io.gshare.api.policy;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.Access;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.core.user.TeamRepository;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import java.math.BigDecimal;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "policies")
class PolicyController {

  private final PolicyRepository policies;
  private final TeamRepository teams;
  private final Access access;

  PolicyController(PolicyRepository policies, TeamRepository teams, Access access) {
    this.policies = policies;
    this.teams = teams;
    this.access = access;
  }

  /** A whole policy: what is left out has no limit (or its default). */
  record PolicyInput(@Min(0) Integer maxConcurrentSessions, @Min(1) Integer maxRuntimeMinutes,
      @Pattern(regexp = "pause|terminate") String maxRuntimeAction, @Min(1) Integer idleTimeoutMinutes,
      @Min(1) Integer idleTimeoutMinutesFractional,
      @Pattern(regexp = "none|shared_pool") String overflow, @Pattern(regexp = "binpack|spread") String placement,
      @DecimalMin("0") BigDecimal minBalanceToStart, @Min(0) Integer volumeQuotaGb, @Min(0) Integer volumeQuotaCount,
      @Min(0) Integer teamVolumeQuotaGb, @Min(0) Integer teamVolumeQuotaCount) {

    Policy toPolicy(String teamId) {
      return new Policy(teamId, maxConcurrentSessions, maxRuntimeMinutes, maxRuntimeAction == null ? "pause" : maxRuntimeAction,
          idleTimeoutMinutes, idleTimeoutMinutesFractional, overflow == null ? "shared_pool" : overflow, placement == null ? "binpack" : placement,
          minBalanceToStart == null ? BigDecimal.ZERO : minBalanceToStart, volumeQuotaGb, volumeQuotaCount,
          teamVolumeQuotaGb, teamVolumeQuotaCount);
    }
  }

  @GetMapping("/api/v1/policies/default")
  @Operation(summary = "The default policy, for users without a team policy (admins)")
  @AdminOnly
  Policy getDefault(Caller.User caller) {
    return policies.effective(null);
  }

  @PutMapping("/api/v1/policies/default")
  @Operation(summary = "Replace the default policy (admins)")
  @AdminOnly
  Policy putDefault(Caller.User caller, @Valid @RequestBody PolicyInput in) {
    policies.upsert(in.toPolicy(null));
    return policies.effective(null);
  }

  @GetMapping("/api/v1/teams/{teamId}/policy")
  @Operation(summary = "The policy in force for a team (its own, or the default): admins, or the team's members")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  Policy getTeam(Caller.User caller, @PathVariable String teamId) {
    if (!teamId.equals(caller.teamId())) {
      access.requireAdmin(caller, "policy", teamId);
    }
    requireTeam(teamId);
    return policies.effective(teamId);
  }

  @PutMapping("/api/v1/teams/{teamId}/policy")
  @Operation(summary = "Give a team its own policy (admins)")
  @AdminOnly
  Policy putTeam(Caller.User caller, @PathVariable String teamId, @Valid @RequestBody PolicyInput in) {
    requireTeam(teamId);
    policies.upsert(in.toPolicy(teamId));
    return policies.effective(teamId);
  }

  @DeleteMapping("/api/v1/teams/{teamId}/policy")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Remove a team's own policy; the default applies again (admins)")
  @AdminOnly
  void deleteTeam(Caller.User caller, @PathVariable String teamId) {
    if (policies.deleteTeamPolicy(teamId) == 0) {
      throw GshareException.notFound("team policy", teamId);
    }
  }

  private void requireTeam(String teamId) {
    if (!teams.exists(teamId)) {
      throw new GshareException(ProblemCode.NOT_FOUND, "no team with id '" + teamId + "'");
    }
  }
}
