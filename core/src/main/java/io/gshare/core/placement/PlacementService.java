package io.gshare.core.placement;

import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.Liveness;
import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.workflows.session.GpuPlacement;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Admission and placement, decided by the control plane in one Postgres transaction: the offering,
 * the user's policy and credits ({@link Admission}), then GPUs in the user's team pool (then the shared pool when the
 * policy allows) that fit the offering's model, mode and slice, on ready schedulable nodes of
 * connected clusters. A placement chooses on what is committed, locks only the chosen cards that no
 * other placement holds ({@code FOR UPDATE SKIP LOCKED}) and checks them again under the lock, so
 * placements of one model run side by side on different cards; only when that cannot settle does it
 * give up its locks (a savepoint) and wait for every candidate in one order. The allocations table's
 * trigger (which locks the same rows) refuses any GPU, slice memory or slice cores beyond capacity.
 *
 * <p>Choice ({@link PlacementStrategy}, no I/O): {@code binpack} fills the busiest fitting GPU (slices) or node (whole GPUs) first, keeping
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

  private final OfferingRepository offerings;
  private final PolicyRepository policies;
  private final Admission admission;
  private final AllocationRepository allocations;
  private final Liveness liveness;

  PlacementService(OfferingRepository offerings, PolicyRepository policies, Admission admission,
      AllocationRepository allocations, Liveness liveness) {
    this.offerings = offerings;
    this.policies = policies;
    this.admission = admission;
    this.allocations = allocations;
    this.liveness = liveness;
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
    return allocations.release(sessionId);
  }

  private Decision decide(Request request, boolean write) {
    OfferingRepository.Offering offering = offerings.findById(request.offeringId())
        .filter(OfferingRepository.Offering::active)
        .orElseThrow(() -> new GshareException(ProblemCode.UNSERVICEABLE,
            "no active offering '" + request.offeringId() + "': an admin must create or activate one"));
    String teamId = admission.teamOf(request.userId());
    Policy policy = policies.effective(teamId);
    admission.admit(request.userId(), request.sessionId(), offering, policy, write);

    List<String> teamPools = admission.poolsOf(teamId);
    // Tiers in order: the team's own pools, then the shared pool when the team has none or may overflow.
    List<List<String>> tiers = new ArrayList<>();
    if (!teamPools.isEmpty()) {
      tiers.add(teamPools);
    }
    boolean shared = teamPools.isEmpty() || policy.mayOverflow();
    if (shared) {
      tiers.add(null); // null: the shared pool (nodes in no pool)
    }

    Set<String> mountable = request.sessionId() == null ? null : allocations.clustersMountingVolumeOf(request.sessionId());
    Packing packing = Packing.fromWire(policy.placement());
    Choice choice;
    if (write) {
      choice = optimistic(offering, request, mountable, tiers, packing);
      if (choice == null) {
        // Capacity is tight or every fitting card was taken meanwhile: wait for all candidates (in one
        // order everywhere, holding none of the attempt's locks) and decide on what is committed.
        allocations.abandonAttempt();
        allocations.lockAllCandidates(offering.gpuModel(), offering.mode(), liveness.staleAfter(), request.clusterId());
        choice = choose(candidates(offering, request, mountable, null), tiers, offering, packing);
      }
    } else {
      choice = choose(candidates(offering, request, mountable, null), tiers, offering, packing);
    }
    if (choice.placement() != null) {
      if (write) {
        allocations.insert(request.sessionId(), choice.placement());
      }
      return new Decision(choice.placement(), offering.pricePerHour(), policy);
    }
    if (!choice.anyHardware()) {
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

  /** Tries before waiting: a placement of one model must not queue behind another on a different card. */
  private static final int OPTIMISTIC_TRIES = 8;

  /**
   * Chooses on what is committed now, then locks only the chosen cards (skipping any another placement
   * holds) and checks, on a read taken after the lock, that they still fit. A choice without placement
   * when nothing fits at all; null when it could not settle that way (the fit is in a later tier, or the
   * cards it chose were taken meanwhile, {@value #OPTIMISTIC_TRIES} times).
   */
  private Choice optimistic(OfferingRepository.Offering offering, Request request, Set<String> mountable,
      List<List<String>> tiers, Packing packing) {
    allocations.beginAttempt();
    // One read of what is committed; each try locks only its choice and re-reads just those cards.
    List<GpuCandidate> open = new ArrayList<>(candidates(offering, request, mountable, null));
    for (int attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
      Choice choice = choose(open, tiers, offering, packing);
      if (choice.placement() == null && attempt == 0) {
        // Nothing fits even on what is committed (allocations still in flight only take more): refuse
        // without waiting for anyone.
        return choice;
      }
      if (choice.placement() == null || choice.tier() > 0) {
        return null;
      }
      if (!"exclusive".equals(offering.mode())) {
        return slice(open, tiers.get(choice.tier()), offering, request, mountable, packing, choice.tier());
      }
      List<String> wanted = choice.placement().gpuUuids();
      if (allocations.tryLock(wanted).size() == wanted.size()) {
        List<GpuCandidate> now = candidates(offering, request, mountable, wanted);
        GpuPlacement fits = PlacementStrategy.choose(now, offering, packing).orElse(null);
        if (fits != null && fits.gpuUuids().containsAll(wanted)) {
          return new Choice(fits, choice.tier(), true);
        }
      }
      // Taken by another placement, or fuller than the first read said: choose among the others.
      open.removeIf(c -> wanted.contains(c.uuid()));
    }
    return null;
  }

  /**
   * A slice: lock the best-ranked card of the tier that no one else holds (one statement), then check on
   * a read after the lock that the slice still fits there; null (wait for all) when it does not.
   */
  private Choice slice(List<GpuCandidate> open, List<String> tier, OfferingRepository.Offering offering,
      Request request, Set<String> mountable, Packing packing, int tierIndex) {
    List<String> ranked = PlacementStrategy.rankSlices(inTier(open, tier), offering, packing).stream().map(GpuCandidate::uuid).toList();
    String locked = allocations.tryLockFirst(ranked).orElse(null);
    if (locked == null) {
      return null;
    }
    List<GpuCandidate> now = candidates(offering, request, mountable, List.of(locked));
    return now.size() == 1 && now.get(0).fitsSlice(offering.gpumemMib(), offering.gpucoresPercent())
        ? new Choice(PlacementStrategy.slice(now.get(0), offering), tierIndex, true) : null;
  }

  /** The candidates in one tier: a team's pools, or the shared pool (null: nodes in no pool). */
  private static List<GpuCandidate> inTier(List<GpuCandidate> candidates, List<String> tier) {
    return candidates.stream()
        .filter(c -> tier == null ? c.poolId() == null : c.poolId() != null && tier.contains(c.poolId()))
        .toList();
  }

  /** The chosen GPUs (or null) and the tier they are in; whether any hardware of the kind was there at all. */
  private record Choice(GpuPlacement placement, int tier, boolean anyHardware) {}

  private List<GpuCandidate> candidates(OfferingRepository.Offering offering, Request request, Set<String> mountable,
      List<String> only) {
    return allocations.candidates(offering.gpuModel(), offering.mode(), liveness.staleAfter(), request.clusterId(), only)
        .stream()
        .filter(c -> mountable == null || mountable.contains(c.clusterId()))
        .toList();
  }

  /** Tiers in order (the team's pools, then the shared pool): the first that has a fit wins. */
  private static Choice choose(List<GpuCandidate> all, List<List<String>> tiers, OfferingRepository.Offering offering,
      Packing packing) {
    boolean anyHardware = false;
    for (int i = 0; i < tiers.size(); i++) {
      List<GpuCandidate> inTier = inTier(all, tiers.get(i));
      anyHardware |= !inTier.isEmpty();
      GpuPlacement chosen = PlacementStrategy.choose(inTier, offering, packing).orElse(null);
      if (chosen != null) {
        return new Choice(chosen, i, true);
      }
    }
    return new Choice(null, -1, anyHardware);
  }

  private static String where(Request request, Set<String> mountable) {
    if (request.clusterId() != null) {
      return " on the session's cluster " + request.clusterId();
    }
    return mountable == null ? "" : " on a cluster that may mount your volume's storage pool";
  }
}
