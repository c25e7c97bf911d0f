package io.gshare.core.pool;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/** Node pools and their members; nodes in no pool are the shared pool. */
@Repository
public class NodePoolRepository {

  public record NodePool(String id, String name, String teamId, String description, List<String> nodeIds) {}

  private final JdbcClient jdbc;

  NodePoolRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** Every pool with its live nodes, by name, in two queries. */
  public List<NodePool> list() {
    Map<String, List<String>> members = new LinkedHashMap<>();
    jdbc.sql("select pool_id, id from nodes where pool_id is not null and removed_at is null order by id")
        .query((rs, n) -> members.computeIfAbsent(rs.getString(1), p -> new ArrayList<>()).add(rs.getString(2))).list();
    return jdbc.sql("select * from node_pools order by name")
        .query((rs, n) -> new NodePool(rs.getString("id"), rs.getString("name"), rs.getString("team_id"),
            rs.getString("description"), List.copyOf(members.getOrDefault(rs.getString("id"), List.of()))))
        .list();
  }

  public Optional<NodePool> findById(String id) {
    return jdbc.sql("select * from node_pools where id = :id").param("id", id)
        .query((rs, n) -> new NodePool(rs.getString("id"), rs.getString("name"), rs.getString("team_id"),
            rs.getString("description"), List.of()))
        .optional()
        .map(p -> new NodePool(p.id(), p.name(), p.teamId(), p.description(),
            jdbc.sql("select id from nodes where pool_id = :p and removed_at is null order by id").param("p", id)
                .query(String.class).list()));
  }

  /** 409 when the name is taken. */
  public NodePool create(String name, String teamId, String description) {
    String id = NewIds.next("pool");
    try {
      jdbc.sql("insert into node_pools (id, name, team_id, description) values (:id, :n, :t, :d)")
          .param("id", id).param("n", name).param("t", teamId).param("d", description).update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "a node pool named " + name + " already exists");
    }
    return findById(id).orElseThrow();
  }

  /** 409 when the name is taken. */
  public NodePool update(String id, String name, String teamId, String description) {
    try {
      jdbc.sql("update node_pools set name = :n, team_id = :t, description = :d where id = :id")
          .param("id", id).param("n", name).param("t", teamId).param("d", description).update();
    } catch (DuplicateKeyException e) {
      throw new GshareException(ProblemCode.CONFLICT, "a node pool named " + name + " already exists");
    }
    return findById(id).orElseThrow();
  }

  /** The listed nodes join the pool, its other nodes return to the shared pool; 422 naming unknown nodes. */
  @Transactional
  public NodePool setNodes(String id, List<String> nodeIds) {
    String[] ids = nodeIds.toArray(String[]::new);
    List<String> known = jdbc.sql("select id from nodes where id = any(:ids) and removed_at is null")
        .param("ids", ids).query(String.class).list();
    List<String> unknown = nodeIds.stream().filter(n -> !known.contains(n)).toList();
    if (!unknown.isEmpty()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no such nodes: " + String.join(", ", unknown));
    }
    jdbc.sql("update nodes set pool_id = null where pool_id = :p and not (id = any(:ids))").param("p", id)
        .param("ids", ids).update();
    jdbc.sql("update nodes set pool_id = :p where id = any(:ids)").param("p", id).param("ids", ids).update();
    return findById(id).orElseThrow();
  }

  /** False when there was no such pool; its nodes return to the shared pool (the foreign key sets null). */
  public boolean delete(String id) {
    return jdbc.sql("delete from node_pools where id = :id").param("id", id).update() > 0;
  }
}
