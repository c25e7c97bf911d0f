package io.gshare.api.placement;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.Caller;
import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.cluster.Cluster;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.placement.PlacementService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * "Could I start this now?" without starting anything: the same admission and placement a session
 * create runs, answered 200 with where, or with the problem it would meet (409 unserviceable,
 * 409 insufficient_capacity, 409 quota_exceeded, 402 insufficient_credits).
 */
@RestController
@Tag(name = "catalogue")
class AvailabilityController {

  private final PlacementService placement;
  private final OfferingRepository offerings;
  private final ClusterRepository clusters;

  AvailabilityController(PlacementService placement, OfferingRepository offerings, ClusterRepository clusters) {
    this.placement = placement;
    this.offerings = offerings;
    this.clusters = clusters;
  }

  /**
   * @param clusterId where placement would put it now (on {@code cluster_id} when asked)
   * @param clusters the same question per attached cluster, for a cluster selector: where it could start, and
   *     why not elsewhere
   */
  record Availability(String offeringId, String gpuModel, String mode, BigDecimal pricePerHour, String clusterId,
      String hostname, List<ClusterAvailability> clusters) {}

  /**
   * @param available whether a session of the offering could start on this cluster now
   * @param problem why not: the problem code a create on it would meet (unserviceable, insufficient_capacity)
   */
  record ClusterAvailability(String clusterId, String clusterName, boolean available, String hostname, String problem,
      String detail) {}

  @GetMapping("/api/v1/availability")
  @Operation(summary = "Whether you could start an offering (by offering_id, or the cheapest active one for gpu_model) now, where, and per attached cluster (cluster_id: on that cluster only)")
  @ProblemResponses({ProblemCode.INSUFFICIENT_CAPACITY, ProblemCode.INSUFFICIENT_CREDITS, ProblemCode.QUOTA_EXCEEDED,
      ProblemCode.UNSERVICEABLE})
  Availability check(Caller.User caller, @RequestParam(name = "offering_id", required = false) String offeringId,
      @RequestParam(name = "gpu_model", required = false) String gpuModel,
      @RequestParam(name = "cluster_id", required = false) String clusterId) {
    String offering = offeringId;
    if (offering == null) {
      if (gpuModel == null) {
        throw new GshareException(ProblemCode.VALIDATION_FAILED, "give offering_id or gpu_model");
      }
      offering = offerings.activeForModel(gpuModel).stream().findFirst()
          .orElseThrow(() -> new GshareException(ProblemCode.UNSERVICEABLE,
              "no active offering for " + gpuModel + ": the model is not for sale (an admin must create an offering)"))
          .id();
    }
    List<Cluster> live = clusters.findAll(false).stream()
        .filter(c -> clusterId == null || c.id().equals(clusterId)).toList();
    if (clusterId != null && live.isEmpty()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no cluster '" + clusterId
          + "': cluster_id must name an attached cluster (GET /api/v1/clusters)");
    }
    // Admission (credits, quota) first and once: it does not depend on the cluster, and its refusal is the answer.
    PlacementService.Decision decision = placement.check(caller.userId(), offering, clusterId);
    List<ClusterAvailability> perCluster = new ArrayList<>();
    for (Cluster c : live) {
      try {
        PlacementService.Decision there = c.id().equals(decision.placement().clusterId()) ? decision
            : placement.check(caller.userId(), offering, c.id());
        perCluster.add(new ClusterAvailability(c.id(), c.name(), true, there.placement().hostname(), null, null));
      } catch (GshareException e) {
        perCluster.add(new ClusterAvailability(c.id(), c.name(), false, null, e.code().code(), e.getMessage()));
      }
    }
    return new Availability(offering, decision.placement().gpuModel(), decision.placement().mode(),
        decision.pricePerHour(), decision.placement().clusterId(), decision.placement().hostname(), perCluster);
  }
}
