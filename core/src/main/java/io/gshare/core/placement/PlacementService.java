package io.gshare.core.placement;

import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.Liveness;
import io.gshare.core.policy.Policy;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.workflows.session.GpuPlacement;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Admission and placement, decided by the control plane in one Postgres transaction: the offering,
 * the user's policy and credits ({@link Admission}), then GPUs in the user's team pool (then the shared pool when the
 * policy allows) that fit the offering's model, mode and slice, on ready schedulable nodes of
 * connected clusters. Allocations are serialized per GPU model by an advisory lock, and the
 * allocations table's trigger refuses any GPU, slice memory or slice cores beyond capacity.
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
  private final ObjectProvider<Observer> observers;

  /** Told of every allocation decision, a create's or a resume's (the api measures them). */
  public interface Observer {
    /**
     * @param outcome {@code placed}, or the problem code of the refusal ({@code insufficient_capacity}, ...)
     * @param took how long the decision took, admission included
     */
    void decided(String outcome, Duration took);
  }

  PlacementService(OfferingRepository offerings, PolicyRepository policies, Admission admission,
      AllocationRepository allocations, Liveness liveness,
      ObjectProvider<Observer> observers) {
    this.offerings = offerings;
    this.policies = policies;
    this.admission = admission;
    this.allocations = allocations;
    this.liveness = liveness;
    this.observers = observers;
  }

  /** Admits and allocates: writes the allocation rows of {@code request.sessionId()}, or throws with why not. */
  @Transactional
  public Decision allocate(Request request) {
    long started = System.nanoTime();
    String outcome = "error";
    try {
      Decision decision = decide(request, true);
      outcome = "placed";
      return decision;
    } catch (GshareException refused) {
      outcome = refused.code().code();
      throw refused;
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      String decided = outcome;
      observers.forEach(o -> o.decided(decided, took));
    }
  }

  /** The same decision without writing anything: may this user start this offering now, and where. */
  @Transactional(readOnly = true)
  public Decision check(String userId, String offeringId) {
    return check(userId, offeringId, null);
  }

  /** {@link #check(String, String)} on one cluster only (null: any). */
  @Transactional(readOnly = true)
  public Decision check(String userId, String offeringId, String clusterId) {
    return decide(new Request(null, userId, offeringId, clusterId), false);
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

    if (write) {
      allocations.lockModel(offering.gpuModel());
    }
    AllocationRepository.VolumeClusters mountable =
        request.sessionId() == null ? null : allocations.clustersMountingVolumeOf(request.sessionId());
    Packing packing = Packing.fromWire(policy.placement());
    List<GpuCandidate> all = allocations.candidates(offering.gpuModel(), offering.mode(), liveness.staleAfter()).stream()
        .filter(c -> request.clusterId() == null || request.clusterId().equals(c.clusterId()))
        .filter(c -> mountable == null || mountable.allows(c.clusterId()))
        .toList();
    boolean anyHardware = false;
    for (List<String> tier : tiers) {
      List<GpuCandidate> inTier = all.stream()
          .filter(c -> tier == null ? c.poolId() == null : c.poolId() != null && tier.contains(c.poolId()))
          .toList();
      anyHardware |= !inTier.isEmpty();
      GpuPlacement chosen = PlacementStrategy.choose(inTier, offering, packing).orElse(null);
      if (chosen != null) {
        if (write) {
          allocations.insert(request.sessionId(), chosen);
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

  private static String where(Request request, AllocationRepository.VolumeClusters mountable) {
    if (request.clusterId() != null) {
      return (request.sessionId() == null ? " on cluster " : " on the session's cluster ") + request.clusterId();
    }
    return mountable == null ? "" : " on a cluster that may mount your volume's storage pool"
        + (mountable.notReady().isEmpty() ? "" : " (its StorageClass is missing on " + String.join(", ",
            new TreeSet<>(mountable.notReady())) + ")");
  }
}
