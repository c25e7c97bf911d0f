package io.gshare.api.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.InventoryFixture;
import io.gshare.api.support.NewTestIds;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.placement.PlacementService;
import io.gshare.workflows.session.GpuPlacement;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.support.TransactionTemplate;

/** Admission and placement on a real PostgreSQL: fit, binpack, pools, policies, and never beyond capacity. */
class PlacementIT extends ApiIntegrationTest {

  @Autowired PlacementService placement;
  @Autowired CreditLedger ledger;
  @Autowired ObjectMapper json;
  @Autowired TransactionTemplate transactions;
  private InventoryFixture fixture;
  private String model;

  @BeforeEach
  void setUp() {
    fixture = new InventoryFixture(jdbc);
    model = "GPU Model " + NewTestIds.next("m"); // a model of this test alone: other tests' cards never interfere
  }

  private String richUser(String teamId) {
    String user = newUser("user");
    if (teamId != null) {
      jdbc.sql("update users set team_id = :t where id = :u").param("t", teamId).param("u", user).update();
    }
    ledger.grant(user, new BigDecimal("1000"), NewTestIds.next("g"), "test", null);
    return user;
  }

  private GpuPlacement allocate(String user, String offering) {
    return placement.allocate(new PlacementService.Request(fixture.session(user, model, "exclusive"), user, offering)).placement();
  }

  private ProblemCode refusal(String user, String offering) {
    try {
      allocate(user, offering);
      return null;
    } catch (GshareException e) {
      return e.code();
    }
  }

  @Test
  void slicesBinpackOntoTheFullestGpuAndWholeGpusStayOnOneNode() {
    String cluster = fixture.cluster();
    String fractional = fixture.node(cluster, "fractional", model, 2, 40960, 10, null);
    fixture.node(cluster, "exclusive", model, 4, 81559, 1, null);
    String slice = fixture.offering(model, "fractional", null, 10240, 25, 1);
    String two = fixture.offering(model, "exclusive", 2, null, null, 4);
    String user = richUser(null);

    GpuPlacement first = allocate(user, slice);
    GpuPlacement second = allocate(user, slice);
    assertThat(first.nodeId()).isEqualTo(fractional);
    assertThat(second.gpuUuids()).isEqualTo(first.gpuUuids()); // binpack: same card until it is full
    assertThat(first.gpumemMib()).isEqualTo(10240);
    assertThat(first.gpucoresPercent()).isEqualTo(25);

    GpuPlacement whole = allocate(user, two);
    assertThat(whole.mode()).isEqualTo("exclusive");
    assertThat(whole.gpuUuids()).hasSize(2).allSatisfy(u -> assertThat(u).startsWith("GPU-" + whole.nodeId()));
    assertThat(whole.gpumemMib()).isNull();
  }

  @Test
  void spreadPutsSlicesOnDifferentGpus() {
    String team = NewTestIds.next("team");
    jdbc.sql("insert into teams (id, name) values (:t, :t)").param("t", team).update();
    jdbc.sql("insert into policies (id, team_id, placement) values (:id, :t, 'spread')")
        .param("id", NewTestIds.next("pol")).param("t", team).update();
    String cluster = fixture.cluster();
    fixture.node(cluster, "fractional", model, 2, 40960, 10, null);
    String slice = fixture.offering(model, "fractional", null, 10240, 25, 1);
    String user = richUser(team);

    assertThat(allocate(user, slice).gpuUuids()).isNotEqualTo(allocate(user, slice).gpuUuids());
  }

  @Test
  void fiftyConcurrentRequestsForTwelveSlotsNeverOversubscribe() throws Exception {
    String cluster = fixture.cluster();
    fixture.node(cluster, "fractional", model, 2, 40960, 4, null);
    fixture.node(cluster, "fractional", model, 1, 40960, 4, null);
    // 3 cards x 4 slices of 10 GiB / 25 %: exactly 12 slots.
    String slice = fixture.offering(model, "fractional", null, 10240, 25, 1);
    List<String> users = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      users.add(richUser(null));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Future<ProblemCode>> answers = new ArrayList<>();
    for (String user : users) {
      Callable<ProblemCode> request = () -> refusal(user, slice);
      answers.add(pool.submit(request));
    }
    int placed = 0;
    int busy = 0;
    for (Future<ProblemCode> answer : answers) {
      ProblemCode code = answer.get();
      if (code == null) {
        placed++;
      } else {
        assertThat(code).isEqualTo(ProblemCode.INSUFFICIENT_CAPACITY);
        busy++;
      }
    }
    pool.shutdown();

    assertThat(placed).isEqualTo(12);
    assertThat(busy).isEqualTo(38);
    List<Object[]> perGpu = jdbc.sql("""
        select g.uuid, count(a.id), coalesce(sum(a.gpumem_mib), 0), coalesce(sum(a.gpucores_percent), 0), g.memory_mib, g.split_count
          from gpu_devices g left join allocations a on a.gpu_uuid = g.uuid and a.released_at is null
         where g.model = :m group by g.uuid
        """).param("m", model)
        .query((rs, n) -> new Object[] {rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6)}).list();
    assertThat(perGpu).hasSize(3).allSatisfy(row -> {
      assertThat((long) row[0]).isLessThanOrEqualTo((long) row[4]);
      assertThat((long) row[1]).isLessThanOrEqualTo((long) row[3]);
      assertThat((long) row[2]).isLessThanOrEqualTo(100);
    });
  }

  @Test
  void aFullTeamPoolOverflowsToTheSharedPoolOnlyWhenItsPolicyAllows() {
    String overflowing = team("shared_pool");
    String confined = team("none");
    String cluster = fixture.cluster();
    String poolA = pool(overflowing);
    String poolB = pool(confined);
    String nodeA = fixture.node(cluster, "exclusive", model, 1, 81559, 1, poolA);
    String nodeB = fixture.node(cluster, "exclusive", model, 1, 81559, 1, poolB);
    String shared = fixture.node(cluster, "exclusive", model, 2, 81559, 1, null);
    String one = fixture.offering(model, "exclusive", 1, null, null, 2);
    String alice = richUser(overflowing);
    String bob = richUser(confined);

    assertThat(allocate(alice, one).nodeId()).isEqualTo(nodeA);   // own pool first
    assertThat(allocate(alice, one).nodeId()).isEqualTo(shared);  // full: overflow
    assertThat(allocate(bob, one).nodeId()).isEqualTo(nodeB);
    assertThat(refusal(bob, one)).isEqualTo(ProblemCode.INSUFFICIENT_CAPACITY); // no overflow for bob
    String carol = richUser(null);                                // no team: the shared pool
    assertThat(allocate(carol, one).nodeId()).isEqualTo(shared);
    assertThat(refusal(carol, one)).isEqualTo(ProblemCode.INSUFFICIENT_CAPACITY);
  }

  @Test
  void aResumeStaysOnItsClusterAndAVolumeKeepsSessionsWhereItsPoolMayBeMounted() {
    String home = fixture.cluster();
    String other = fixture.cluster();
    String homeNode = fixture.node(home, "exclusive", model, 1, 81559, 1, null);
    String otherNode = fixture.node(other, "exclusive", model, 2, 81559, 1, null);
    String one = fixture.offering(model, "exclusive", 1, null, null, 2);
    String user = richUser(null);

    // Binpack alone would pick the home node (fewest free GPUs); held, the named cluster still decides.
    String first = fixture.session(user, model, "exclusive");
    assertThat(placement.allocate(new PlacementService.Request(first, user, one, home)).placement().nodeId()).isEqualTo(homeNode);
    String second = fixture.session(user, model, "exclusive");
    assertThatThrownBy(() -> placement.allocate(new PlacementService.Request(second, user, one, home)))
        .isInstanceOfSatisfying(GshareException.class, e -> {
          assertThat(e.code()).isEqualTo(ProblemCode.INSUFFICIENT_CAPACITY);
          assertThat(e.getMessage()).contains("on the session's cluster " + home);
        });
    assertThat(jdbc.sql("select count(*) from allocations where session_id = :s").param("s", second)
        .query(Integer.class).single()).isZero();
    assertThat(placement.allocate(new PlacementService.Request(second, user, one)).placement().nodeId()).isEqualTo(otherNode);

    // A volume on a pool only the home cluster may mount: never placed on the other one.
    String pool = NewTestIds.next("sp");
    jdbc.sql("insert into storage_pools (id, name, storage_class, scope) values (:p, :p, 'gshare-data', 'selected')")
        .param("p", pool).update();
    jdbc.sql("insert into storage_pool_clusters (pool_id, cluster_id) values (:p, :c)").param("p", pool).param("c", home).update();
    String volume = NewTestIds.next("vol");
    jdbc.sql("insert into volumes (id, owner_id, name, storage_pool_id, size_gb) values (:v, :u, :n, :p, 10)")
        .param("v", volume).param("u", user).param("n", volume.replace('_', '-')).param("p", pool).update();
    String withVolume = fixture.session(user, model, "exclusive");
    jdbc.sql("update sessions set volume_id = :v where id = :s").param("v", volume).param("s", withVolume).update();
    assertThatThrownBy(() -> placement.allocate(new PlacementService.Request(withVolume, user, one)))
        .isInstanceOfSatisfying(GshareException.class, e -> {
          assertThat(e.code()).isEqualTo(ProblemCode.INSUFFICIENT_CAPACITY);
          assertThat(e.getMessage()).contains("may mount your volume's storage pool");
        });
    placement.release(first);
    assertThat(placement.allocate(new PlacementService.Request(withVolume, user, one)).placement().clusterId()).isEqualTo(home);
  }

  @Test
  void concurrentCreatesOfOneUserNeverExceedItsConcurrencyLimit() throws Exception {
    String cluster = fixture.cluster();
    fixture.node(cluster, "exclusive", model, 8, 81559, 1, null);
    String one = fixture.offering(model, "exclusive", 1, null, null, 1);
    String team = team("shared_pool");
    jdbc.sql("update policies set max_concurrent_sessions = 1 where team_id = :t").param("t", team).update();
    String user = richUser(team);

    // As session create does it: the row and its placement in one transaction, ten at once.
    ExecutorService pool = Executors.newFixedThreadPool(10);
    List<Future<ProblemCode>> answers = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      answers.add(pool.submit(() -> transactions.execute(tx -> {
        String session = NewTestIds.next("ses");
        jdbc.sql("""
            insert into sessions (id, user_id, state, gpu_model, mode, price_per_hour, image_reference, workflow_id)
            values (:id, :u, 'pending', :m, 'exclusive', 1, 'img', :w)
            """).param("id", session).param("u", user).param("m", model).param("w", "session-" + session).update();
        try {
          placement.allocate(new PlacementService.Request(session, user, one));
          return null;
        } catch (GshareException e) {
          tx.setRollbackOnly();
          return e.code();
        }
      })));
    }
    List<ProblemCode> codes = new ArrayList<>();
    for (Future<ProblemCode> answer : answers) {
      codes.add(answer.get());
    }
    pool.shutdown();
    assertThat(codes.stream().filter(Objects::isNull).count()).as(codes.toString()).isEqualTo(1);
    assertThat(codes.stream().filter(ProblemCode.QUOTA_EXCEEDED::equals).count()).isEqualTo(9);
  }

  @Test
  void theAnswersSayWhyNot() throws Exception {
    String cluster = fixture.cluster();
    fixture.node(cluster, "exclusive", model, 1, 81559, 1, null);
    String one = fixture.offering(model, "exclusive", 1, null, null, 6);
    String user = richUser(null);

    String inactive = fixture.offering(model, "exclusive", 1, null, null, 1);
    jdbc.sql("update offerings set active = false where id = :id").param("id", inactive).update();
    assertThat(refusal(user, inactive)).isEqualTo(ProblemCode.UNSERVICEABLE);
    String elsewhere = fixture.offering("Model Nobody Has " + model, "exclusive", 1, null, null, 1);
    assertThat(refusal(user, elsewhere)).isEqualTo(ProblemCode.UNSERVICEABLE);

    String poor = newUser("user");
    assertThat(refusal(poor, one)).isEqualTo(ProblemCode.INSUFFICIENT_CREDITS);

    String team = team("shared_pool");
    jdbc.sql("update policies set max_concurrent_sessions = 0 where team_id = :t").param("t", team).update();
    assertThat(refusal(richUser(team), one)).isEqualTo(ProblemCode.QUOTA_EXCEEDED);

    // Through the API: a model with cards and no active offering is unserviceable; admins see it listed.
    String unoffered = "Unoffered " + model;
    fixture.node(cluster, "exclusive", unoffered, 1, 1000, 1, null);
    var response = get("/api/v1/availability?gpu_model=" + URLEncoder.encode(unoffered, "UTF-8"), tokenFor(user));
    assertThat(response.status()).isEqualTo(409);
    assertThat(json.readTree(response.text()).get("code").asText()).isEqualTo("unserviceable");
    assertThat(get("/api/v1/offerings", adminToken()).text()).contains(unoffered);
    assertThat(get("/api/v1/offerings", tokenFor(user)).text()).doesNotContain(unoffered);

    var ok = get("/api/v1/availability?offering_id=" + one, tokenFor(user));
    assertThat(ok.status()).as(ok.text()).isEqualTo(200);
    assertThat(json.readTree(ok.text()).get("cluster_id").asText()).isEqualTo(cluster);
    var poorAnswer = get("/api/v1/availability?offering_id=" + one, tokenFor(poor));
    assertThat(poorAnswer.status()).isEqualTo(402);
  }

  @Test
  void theDatabaseRefusesAllocationsBeyondCapacityWhoeverWritesThem() {
    String cluster = fixture.cluster();
    String node = fixture.node(cluster, "fractional", model, 1, 1000, 2, null);
    String uuid = "GPU-" + node + "-0";
    String user = richUser(null);
    insertAllocation(fixture.session(user, model, "exclusive"), node, uuid, 600, 50);
    assertThatThrownBy(() -> insertAllocation(fixture.session(user, model, "exclusive"), node, uuid, 600, 10))
        .isInstanceOf(DataAccessException.class).hasMessageContaining("has no room");
    assertThatThrownBy(() -> insertAllocation(fixture.session(user, model, "exclusive"), node, uuid, null, null))
        .isInstanceOf(DataAccessException.class).hasMessageContaining("already allocated");

    String released = fixture.session(user, model, "exclusive");
    insertAllocation(released, node, uuid, 400, 50);
    assertThat(placement.release(released)).isEqualTo(1);
    assertThat(placement.release(released)).isZero();
    insertAllocation(fixture.session(user, model, "exclusive"), node, uuid, 400, 50);
  }

  private void insertAllocation(String session, String node, String uuid, Integer mem, Integer cores) {
    jdbc.sql("insert into allocations (id, session_id, node_id, gpu_uuid, gpumem_mib, gpucores_percent) values (:id, :s, :n, :g, :m, :c)")
        .param("id", NewTestIds.next("alc")).param("s", session).param("n", node).param("g", uuid).param("m", mem)
        .param("c", cores).update();
  }

  private String team(String overflow) {
    String team = NewTestIds.next("team");
    jdbc.sql("insert into teams (id, name) values (:t, :t)").param("t", team).update();
    jdbc.sql("insert into policies (id, team_id, overflow) values (:id, :t, :o)")
        .param("id", NewTestIds.next("pol")).param("t", team).param("o", overflow).update();
    return team;
  }

  private String pool(String team) {
    String pool = NewTestIds.next("pool");
    jdbc.sql("insert into node_pools (id, name, team_id) values (:p, :p, :t)").param("p", pool).param("t", team).update();
    return pool;
  }
}
