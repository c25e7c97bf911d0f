package io.gshare.api.pool;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.pool.NodePoolRepository;
import io.gshare.core.pool.NodePoolRepository.NodePool;
import io.gshare.core.user.TeamRepository;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Node pools: nodes dedicated to a team. Nodes in no pool form the shared pool; deleting a pool
 * returns its nodes there. An emptied pool stays until deleted, as the guide's "후속 정리" says.
 */
@RestController
@RequestMapping("/api/v1/node-pools")
@Tag(name = "node pools")
class NodePoolController {

  private final NodePoolRepository pools;
  private final TeamRepository teams;

  NodePoolController(NodePoolRepository pools, TeamRepository teams) {
    this.pools = pools;
    this.teams = teams;
  }

  @Schema(name = "NodePoolInput")
  record PoolInput(@NotBlank @Size(max = 100) String name, String teamId, @Size(max = 1000) String description) {}

  record PoolChange(@Size(min = 1, max = 100) String name, String teamId, @Size(max = 1000) String description) {}

  record PoolNodes(@NotNull @Size(max = 10_000) List<String> nodeIds) {}

  @Schema(name = "NodePoolList")
  record PoolList(List<NodePool> items) {}

  @GetMapping
  @Operation(summary = "Node pools and their nodes (admins)")
  @AdminOnly
  PoolList list(Caller.User caller) {
    return new PoolList(pools.list());
  }

  @GetMapping("/{id}")
  @Operation(summary = "One node pool (admins)")
  @AdminOnly
  NodePool get(Caller.User caller, @PathVariable String id) {
    return pools.findById(id).orElseThrow(() -> GshareException.notFound("node pool", id));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create a node pool, dedicated to a team or not yet (admins)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  NodePool create(Caller.User caller, @Valid @RequestBody PoolInput in) {
    requireTeam(in.teamId());
    return pools.create(in.name(), in.teamId(), in.description());
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Rename a pool or give it to another team (admins; team_id \"\" frees it)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  NodePool update(Caller.User caller, @PathVariable String id, @Valid @RequestBody PoolChange in) {
    NodePool pool = pools.findById(id).orElseThrow(() -> GshareException.notFound("node pool", id));
    String team = in.teamId() == null ? pool.teamId() : (in.teamId().isEmpty() ? null : in.teamId());
    requireTeam(team);
    return pools.update(id, in.name() == null ? pool.name() : in.name(), team,
        in.description() == null ? pool.description() : in.description());
  }

  @PutMapping("/{id}/nodes")
  @Transactional
  @Operation(summary = "Set the pool's nodes (admins): listed nodes join it, others of the pool return to the shared pool")
  @AdminOnly
  NodePool setNodes(Caller.User caller, @PathVariable String id, @Valid @RequestBody PoolNodes in) {
    pools.findById(id).orElseThrow(() -> GshareException.notFound("node pool", id));
    return pools.setNodes(id, in.nodeIds());
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Delete a pool (admins); its nodes return to the shared pool")
  @AdminOnly
  void delete(Caller.User caller, @PathVariable String id) {
    if (!pools.delete(id)) {
      throw GshareException.notFound("node pool", id);
    }
  }

  private void requireTeam(String teamId) {
    if (teamId != null && !teams.exists(teamId)) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no team with id '" + teamId + "'");
    }
  }
}
