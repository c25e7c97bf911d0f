package io.gshare.api.placement;

import io.gshare.activities.control.CreditLedger;
import io.gshare.api.catalogue.OfferingRepository;
import io.gshare.api.error.GshareException;
import io.gshare.api.error.ProblemCode;
import io.gshare.api.node.NodeProperties;
import io.gshare.api.policy.Policy;
import io.gshare.api.policy.PolicyRepository;
import io.gshare.api.support.NewIds;
import io.gshare.workflows.session.GpuPlacement;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Admission and placement, decided by the control plane in one Postgres transaction: the offering,
 * the user's policy and credits, then GPUs in the user's team pool (then the shared pool when the
 * policy allows) that fit the offering's model, mode and slice, on ready schedulable nodes of
 * connected clusters. Allocations are serialized per GPU model by an advisory lock, and the
 * allocations table's trigger refuses any GPU, slice memory or slice cores beyond capacity.
 *
 * <p>Choice: {@code binpack} fills the busiest fitting GPU (slices) or node (whole GPUs) first, keeping
 * whole GPUs and nodes free for large requests; {@code spread} does the opposite.
 */
@Service
public class PlacementService {

  /**
   * What a session asks for.
   *
   * @param clusterId only this cluster (a resume stays where its URL, volume claim and checkpoint are); null: any
   */
  public record Request(String sessionId, String userId, String offeringId, String clusterId) {

    public Request(String sessionId, String userId, String offeringId) {
      this(sessionId, userId, offeringId, null);
    }
  }

  /** A decision: where, what it costs, and the policy it was taken under (which the session then runs by). */
  public record Decision(GpuPlacement placement, BigDecimal pricePerHour, Policy policy) {}

  private static final Set<String> LIVE_STATES = Set.of("pending", "creating", "running", "pausing", "resuming");

  private record Candidate(String uuid, int index, String nodeId, String hostname, String clusterId, String poolId,
      boolean lossless, long memoryMib, int coresPercent, int splitCount, int usedCount, int usedWhole, long usedMem, int usedCores) {

    boolean free() {
      return usedCount == 0;
    }

    boolean fitsSlice(int mem, int cores) {
      return usedWhole == 0 && usedCount + 1 <= splitCount && usedMem + mem <= memoryMib && usedCores + cores <= coresPercent;
    }
  }

  private final JdbcClient jdbc;
  private final OfferingRepository offerings;
  private final PolicyRepository policies;
  private final CreditLedger ledger;
  private final NodeProperties nodes;

  PlacementService(JdbcClient jdbc, OfferingRepository offerings, PolicyRepository policies, CreditLedger ledger,
      NodeProperties nodes) {
    this.jdbc = jdbc;
    this.offerings = offerings;
    this.policies = policies;
    this.ledger = ledger;
    this.nodes = nodes;
  }

  /** Admits and allocates: writes the allocation rows of {@code request.sessionId()}, or throws with why not. */
  @Transactional
  public Decision allocate(Request request) {
    return decide(request, true);
  }

  /** The same decision without writing anything: may this user start this offering now, and where. */
  @Transactional(readOnly = true)
  public Decision check(String userId, String offeringId) {
    return decide(new Request(null, userId, offeringId), false);
  }

  /** Releases a session's GPUs (idempotent). */
  @Transactional
  public int release(String sessionId) {
    return jdbc.sql("update allocations set released_at = now() where session_id = :s and released_at is null")
        .param("s", sessionId).update();
  }

  private Decision decide(Request request, boolean write) {
    OfferingRepository.Offering offering = offerings.findById(request.offeringId())
        .filter(OfferingRepository.Offering::active)
        .orElseThrow(() -> new GshareException(ProblemCode.UNSERVICEABLE,
            "no active offering '" + request.offeringId() + "': an admin must create or activate one"));
    String teamId = jdbc.sql("select team_id from users where id = :u and not disabled").param("u", request.userId())
        .query(String.class).optional().orElse(null);
    Policy policy = policies.effective(teamId);

    if (policy.maxConcurrentSessions() != null) {
      if (write) {
        // One admission per user at a time: two creates racing must each count the other's session.
        jdbc.sql("select pg_advisory_xact_lock(hashtext(:key))").param("key", "gshare-user:" + request.userId())
            .query((rs, n) -> 1).list();
      }
      int live = jdbc.sql("select count(*) from sessions where user_id = :u and state = any(:states)"
              + (request.sessionId() == null ? "" : " and id <> :s"))
          .param("u", request.userId()).param("states", LIVE_STATES.toArray(String[]::new))
          .params(request.sessionId() == null ? Map.of() : Map.of("s", request.sessionId()))
          .query(Integer.class).single();
      if (live >= policy.maxConcurrentSessions()) {
        throw new GshareException(ProblemCode.QUOTA_EXCEEDED, "your policy allows " + policy.maxConcurrentSessions()
            + " concurrent session(s) and you have " + live, Map.of("limit", policy.maxConcurrentSessions()));
      }
    }

    BigDecimal balance = ledger.balance(CreditLedger.accountIdOf(request.userId()));
    BigDecimal firstMinute = offering.pricePerHour().divide(BigDecimal.valueOf(60), 6, RoundingMode.UP);
    BigDecimal needed = policy.minBalanceToStart().max(firstMinute);
    if (needed.signum() > 0 && balance.compareTo(needed) < 0) {
      throw new GshareException(ProblemCode.INSUFFICIENT_CREDITS, "starting " + offering.name() + " needs a balance of "
          + needed.stripTrailingZeros().toPlainString() + " credits; yours is " + balance.stripTrailingZeros().toPlainString(),
          Map.of("balance", balance, "required", needed));
    }

    List<String> teamPools = teamId == null ? List.of()
        : jdbc.sql("select id from node_pools where team_id = :t").param("t", teamId).query(String.class).list();
    // Tiers in order: the team's own pools, then the shared pool when the team has none or may overflow.
    List<List<String>> tiers = new ArrayList<>();
    if (!teamPools.isEmpty()) {
      tiers.add(teamPools);
    }
    boolean shared = teamPools.isEmpty() || policy.mayOverflow();
    if (shared) {
      tiers.add(null); // null: the shared pool (nodes in no pool)
    }

    if (write) {
      // One placement per GPU model at a time; different models do not wait for each other.
      jdbc.sql("select pg_advisory_xact_lock(hashtext(:key))").param("key", "gshare-placement:" + offering.gpuModel())
          .query((rs, n) -> 1).list();
    }
    Set<String> mountable = request.sessionId() == null ? null : clustersMountingVolumeOf(request.sessionId());
    List<Candidate> all = candidates(offering).stream()
        .filter(c -> request.clusterId() == null || request.clusterId().equals(c.clusterId()))
        .filter(c -> mountable == null || mountable.contains(c.clusterId()))
        .toList();
    boolean anyHardware = false;
    for (List<String> tier : tiers) {
      List<Candidate> inTier = all.stream()
          .filter(c -> tier == null ? c.poolId() == null : c.poolId() != null && tier.contains(c.poolId()))
          .toList();
      anyHardware |= !inTier.isEmpty();
      GpuPlacement chosen = "exclusive".equals(offering.mode())
          ? pickWhole(inTier, offering, policy)
          : pickSlice(inTier, offering, policy);
      if (chosen != null) {
        if (write) {
          for (String uuid : chosen.gpuUuids()) {
            jdbc.sql("""
                insert into allocations (id, session_id, node_id, gpu_uuid, gpumem_mib, gpucores_percent)
                values (:id, :s, :n, :g, :mem, :cores)
                """)
                .param("id", NewIds.next("alc")).param("s", request.sessionId()).param("n", chosen.nodeId())
                .param("g", uuid).param("mem", chosen.gpumemMib()).param("cores", chosen.gpucoresPercent())
                .update();
          }
        }
        return new Decision(chosen, offering.pricePerHour(), policy);
      }
    }
    if (!anyHardware) {
      throw new GshareException(ProblemCode.UNSERVICEABLE, "no " + offering.gpuModel() + " " + offering.mode()
          + " node is ready, on a cluster with a session_domain" + where(request, mountable) + ", in "
          + (teamPools.isEmpty() ? "the shared pool" : shared ? "your team's pool or the shared pool"
          : "your team's pool (your policy does not allow the shared pool)"));
    }
    throw new GshareException(ProblemCode.INSUFFICIENT_CAPACITY, "every " + offering.gpuModel() + " you may use"
        + where(request, mountable) + " is busy"
        + (teamPools.isEmpty() || shared ? "" : "; your policy keeps you to your team's pool")
        + ": try again when a session ends");
  }

  private static String where(Request request, Set<String> mountable) {
    if (request.clusterId() != null) {
      return " on the session's cluster " + request.clusterId();
    }
    return mountable == null ? "" : " on a cluster that may mount your volume's storage pool";
  }

  /**
   * The clusters that may mount the session's volume: those its storage pool names when the pool's scope
   * is {@code selected}; null when any cluster may (no volume, no pool, or scope {@code all}).
   */
  private Set<String> clustersMountingVolumeOf(String sessionId) {
    String pool = jdbc.sql("""
        select p.id from sessions s join volumes v on v.id = s.volume_id join storage_pools p on p.id = v.storage_pool_id
         where s.id = :s and p.scope = 'selected'
        """).param("s", sessionId).query(String.class).optional().orElse(null);
    if (pool == null) {
      return null;
    }
    return Set.copyOf(jdbc.sql("select cluster_id from storage_pool_clusters where pool_id = :p").param("p", pool)
        .query(String.class).list());
  }

  private List<Candidate> candidates(OfferingRepository.Offering offering) {
    return jdbc.sql("""
        select g.uuid, g.device_index, n.id as node_id, n.hostname, n.cluster_id, n.pool_id, n.lossless_pause,
               g.memory_mib, g.cores_percent, g.split_count,
               count(a.id) as used_count, count(a.id) filter (where a.gpumem_mib is null) as used_whole,
               coalesce(sum(a.gpumem_mib), 0) as used_mem, coalesce(sum(a.gpucores_percent), 0) as used_cores
          from gpu_devices g
          join nodes n on n.id = g.node_id
          join clusters c on c.id = n.cluster_id
          left join allocations a on a.gpu_uuid = g.uuid and a.released_at is null
         where g.model = :model and g.healthy and not g.cordoned
           and n.gpu_mode = :mode and n.removed_at is null and n.schedulable and n.liveness = 'ready'
           and c.status = 'connected' and c.inventory_at > now() - make_interval(secs => :stale)
           -- a cluster without a session domain cannot serve a session URL
           and c.session_domain is not null
         group by g.uuid, g.device_index, n.id, n.hostname, n.cluster_id, n.pool_id, n.lossless_pause, g.memory_mib, g.cores_percent,
                  g.split_count
         order by n.cluster_id, n.hostname, g.device_index
        """)
        .param("model", offering.gpuModel()).param("mode", offering.mode()).param("stale", nodes.staleAfter().toSeconds())
        .query((rs, n) -> new Candidate(rs.getString("uuid"), rs.getInt("device_index"), rs.getString("node_id"),
            rs.getString("hostname"), rs.getString("cluster_id"), rs.getString("pool_id"), rs.getBoolean("lossless_pause"),
            rs.getLong("memory_mib"),
            rs.getInt("cores_percent"), rs.getInt("split_count"), rs.getInt("used_count"), rs.getInt("used_whole"),
            rs.getLong("used_mem"), rs.getInt("used_cores")))
        .list();
  }

  /** Whole GPUs, all on one node: binpack takes the node with the fewest free GPUs that still fit. */
  private static GpuPlacement pickWhole(List<Candidate> candidates, OfferingRepository.Offering offering, Policy policy) {
    int count = offering.gpuCount();
    Map<String, List<Candidate>> freeByNode = candidates.stream().filter(Candidate::free)
        .collect(Collectors.groupingBy(Candidate::nodeId, LinkedHashMap::new, Collectors.toList()));
    Comparator<Map.Entry<String, List<Candidate>>> byFree = Comparator.comparingInt(e -> e.getValue().size());
    if ("spread".equals(policy.placement())) {
      byFree = byFree.reversed();
    }
    return freeByNode.entrySet().stream()
        .filter(e -> e.getValue().size() >= count)
        .min(byFree.thenComparing(e -> e.getValue().get(0).hostname()))
        .map(e -> {
          List<Candidate> gpus = e.getValue().subList(0, count);
          Candidate first = gpus.get(0);
          return new GpuPlacement(first.clusterId(), first.nodeId(), first.hostname(), "exclusive", offering.gpuModel(),
              gpus.stream().map(Candidate::uuid).toList(), null, null, first.lossless());
        })
        .orElse(null);
  }

  /** One slice of one GPU: binpack takes the fullest GPU that still fits, so whole GPUs stay free. */
  private static GpuPlacement pickSlice(List<Candidate> candidates, OfferingRepository.Offering offering, Policy policy) {
    Comparator<Candidate> byUse = Comparator.comparingLong(Candidate::usedMem).thenComparingInt(Candidate::usedCount);
    Comparator<Candidate> order = "spread".equals(policy.placement()) ? byUse : byUse.reversed();
    return candidates.stream()
        .filter(c -> c.fitsSlice(offering.gpumemMib(), offering.gpucoresPercent()))
        .min(order.thenComparing(Candidate::hostname).thenComparingInt(Candidate::index))
        .map(c -> new GpuPlacement(c.clusterId(), c.nodeId(), c.hostname(), "fractional", offering.gpuModel(),
            List.of(c.uuid()), offering.gpumemMib(), offering.gpucoresPercent(), c.lossless()))
        .orElse(null);
  }
}
