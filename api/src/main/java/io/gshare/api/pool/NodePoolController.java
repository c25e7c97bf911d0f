package io.gshare.api.pool;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.support.NewIds;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
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

  private final JdbcClient jdbc;
  private final Access access;

  NodePoolController(JdbcClient jdbc, Access access) {
    this.jdbc = jdbc;
    this.access = access;
  }

  record NodePool(String id, String name, String teamId, String description, List<String> nodeIds) {}

  record PoolInput(@NotBlank @Size(max = 100) String name, String teamId, @Size(max = 1000) String description) {}

  record PoolChange(@Size(max = 100) String name, String teamId, @Size(max = 1000) String description) {}

  record PoolNodes(@NotNull @Size(max = 10_000) List<String> nodeIds) {}

  record PoolList(List<NodePool> items) {}

  @GetMapping
  @Operation(summary = "Node pools and their nodes (admins)")
  PoolList list(Caller.User caller) {
    access.requireAdmin(caller, "node_pool", null);
    return new PoolList(jdbc.sql("select id from node_pools order by name").query(String.class).list().stream()
        .map(id -> find(id).orElseThrow()).toList());
  }

  @GetMapping("/{id}")
  @Operation(summary = "One node pool (admins)")
  NodePool get(Caller.User caller, @PathVariable String id) {
    access.requireAdmin(caller, "node_pool", id);
    return find(id).orElseThrow(() -> GshareException.notFound("node pool", id));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create a node pool, dedicated to a team or not yet (admins)")
  NodePool create(Caller.User caller, @Valid @RequestBody PoolInput in) {
    access.requireAdmin(caller, "node_pool", null);
    requireTeam(in.teamId());
    String id = NewIds.next("pool");
    try {
      jdbc.sql("insert into node_pools (id, name, team_id, description) values (:id, :n, :t, :d)")
          .param("id", id).param("n", in.name()).param("t", in.teamId()).param("d", in.description()).update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "a node pool named " + in.name() + " already exists");
    }
    return find(id).orElseThrow();
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Rename a pool or give it to another team (admins; team_id \"\" frees it)")
  NodePool update(Caller.User caller, @PathVariable String id, @Valid @RequestBody PoolChange in) {
    access.requireAdmin(caller, "node_pool", id);
    NodePool pool = find(id).orElseThrow(() -> GshareException.notFound("node pool", id));
    String team = in.teamId() == null ? pool.teamId() : (in.teamId().isEmpty() ? null : in.teamId());
    requireTeam(team);
    try {
      jdbc.sql("update node_pools set name = :n, team_id = :t, description = :d where id = :id")
          .param("id", id).param("n", in.name() == null ? pool.name() : in.name()).param("t", team)
          .param("d", in.description() == null ? pool.description() : in.description()).update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "a node pool named " + in.name() + " already exists");
    }
    return find(id).orElseThrow();
  }

  @PutMapping("/{id}/nodes")
  @Transactional
  @Operation(summary = "Set the pool's nodes (admins): listed nodes join it, others of the pool return to the shared pool")
  NodePool setNodes(Caller.User caller, @PathVariable String id, @Valid @RequestBody PoolNodes in) {
    access.requireAdmin(caller, "node_pool", id);
    find(id).orElseThrow(() -> GshareException.notFound("node pool", id));
    String[] ids = in.nodeIds().toArray(String[]::new);
    List<String> known = jdbc.sql("select id from nodes where id = any(:ids) and removed_at is null")
        .param("ids", ids).query(String.class).list();
    List<String> unknown = in.nodeIds().stream().filter(n -> !known.contains(n)).toList();
    if (!unknown.isEmpty()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no such nodes: " + String.join(", ", unknown));
    }
    jdbc.sql("update nodes set pool_id = null where pool_id = :p and not (id = any(:ids))").param("p", id)
        .param("ids", ids).update();
    jdbc.sql("update nodes set pool_id = :p where id = any(:ids)").param("p", id).param("ids", ids).update();
    return find(id).orElseThrow();
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Delete a pool (admins); its nodes return to the shared pool")
  void delete(Caller.User caller, @PathVariable String id) {
    access.requireAdmin(caller, "node_pool", id);
    if (jdbc.sql("delete from node_pools where id = :id").param("id", id).update() == 0) {
      throw GshareException.notFound("node pool", id);
    }
  }

  private Optional<NodePool> find(String id) {
    return jdbc.sql("select * from node_pools where id = :id").param("id", id)
        .query((rs, n) -> new NodePool(rs.getString("id"), rs.getString("name"), rs.getString("team_id"),
            rs.getString("description"), List.of()))
        .optional()
        .map(p -> new NodePool(p.id(), p.name(), p.teamId(), p.description(),
            jdbc.sql("select id from nodes where pool_id = :p and removed_at is null order by id").param("p", id)
                .query(String.class).list()));
  }

  private void requireTeam(String teamId) {
    if (teamId != null && jdbc.sql("select count(*) from teams where id = :t").param("t", teamId)
        .query(Integer.class).single() == 0) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no team with id '" + teamId + "'");
    }
  }
}
