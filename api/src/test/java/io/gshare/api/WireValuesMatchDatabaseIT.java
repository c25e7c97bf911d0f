package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.core.node.GpuMode;
import io.gshare.core.node.NodeLiveness;
import io.gshare.core.placement.Packing;
import io.gshare.core.user.Role;
import io.gshare.core.volume.CapacitySource;
import io.gshare.core.volume.ExpansionStatus;
import io.gshare.core.volume.PoolScope;
import io.gshare.core.volume.VolumeStatus;
import io.gshare.workflows.cluster.ClusterStatus;
import io.gshare.workflows.session.MaxRuntimeAction;
import io.gshare.workflows.session.PauseKind;
import io.gshare.workflows.session.SessionState;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Each typed value set and the CHECK constraint of the column that stores it list the same values. */
class WireValuesMatchDatabaseIT extends ApiIntegrationTest {

  private static final Pattern QUOTED = Pattern.compile("'([^']*)'");

  /** The values a column's CHECK (col in (...)) allows, from the live schema Flyway built. */
  private Set<String> allowed(String table, String column) {
    String definition = jdbc.sql("""
            select pg_get_constraintdef(c.oid) from pg_constraint c join pg_class t on t.oid = c.conrelid
             where t.relname = :table and c.contype = 'c' and pg_get_constraintdef(c.oid) like '%(' || :column || ' = ANY%'
            """)
        .param("table", table).param("column", column).query(String.class).single();
    Set<String> values = new LinkedHashSet<>();
    Matcher m = QUOTED.matcher(definition);
    while (m.find()) {
      values.add(m.group(1));
    }
    return values;
  }

  private static <E extends Enum<E>> Set<String> wire(Class<E> type, Function<E, String> wireName) {
    Set<String> values = new LinkedHashSet<>();
    Arrays.stream(type.getEnumConstants()).map(wireName).forEach(values::add);
    return values;
  }

  @Test
  void sessionStatesClusterStatusesPauseKindsAndPackingsAreTheSchemas() {
    assertThat(allowed("sessions", "state")).containsExactlyInAnyOrderElementsOf(wire(SessionState.class, SessionState::wireName));
    assertThat(allowed("clusters", "status")).containsExactlyInAnyOrderElementsOf(wire(ClusterStatus.class, ClusterStatus::wireName));
    assertThat(allowed("sessions", "pause_kind")).containsExactlyInAnyOrderElementsOf(wire(PauseKind.class, PauseKind::wireName));
    assertThat(allowed("policies", "placement")).containsExactlyInAnyOrderElementsOf(wire(Packing.class, Packing::wireName));
    assertThat(allowed("users", "role")).containsExactlyInAnyOrderElementsOf(wire(Role.class, Role::wireName));
    assertThat(allowed("policies", "max_runtime_action"))
        .containsExactlyInAnyOrderElementsOf(wire(MaxRuntimeAction.class, MaxRuntimeAction::wireName));
  }

  @Test
  void nodeLivenessAndGpuModesAreTheSchemas() {
    assertThat(allowed("nodes", "liveness")).containsExactlyInAnyOrderElementsOf(wire(NodeLiveness.class, NodeLiveness::wireName));
    assertThat(allowed("nodes", "gpu_mode")).containsExactlyInAnyOrderElementsOf(wire(GpuMode.class, GpuMode::wireName));
  }

  @Test
  void volumeStatusesPoolScopesCapacitySourcesAndExpansionStatusesAreTheSchemas() {
    assertThat(allowed("volumes", "status")).containsExactlyInAnyOrderElementsOf(wire(VolumeStatus.class, VolumeStatus::wireName));
    assertThat(allowed("storage_pools", "scope")).containsExactlyInAnyOrderElementsOf(wire(PoolScope.class, PoolScope::wireName));
    assertThat(allowed("storage_pools", "capacity_source"))
        .containsExactlyInAnyOrderElementsOf(wire(CapacitySource.class, CapacitySource::wireName));
    assertThat(allowed("volume_expansions", "status"))
        .containsExactlyInAnyOrderElementsOf(wire(ExpansionStatus.class, ExpansionStatus::wireName));
  }
}
