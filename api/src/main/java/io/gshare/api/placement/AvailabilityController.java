package io.gshare.api.placement;

import io.gshare.core.placement.PlacementService;

import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.math.BigDecimal;
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

  AvailabilityController(PlacementService placement, OfferingRepository offerings) {
    this.placement = placement;
    this.offerings = offerings;
  }

  record Availability(String offeringId, String gpuModel, String mode, BigDecimal pricePerHour, String clusterId,
      String hostname) {}

  @GetMapping("/api/v1/availability")
  @Operation(summary = "Whether you could start an offering (by offering_id, or the cheapest active one for gpu_model) now")
  Availability check(Caller.User caller, @RequestParam(name = "offering_id", required = false) String offeringId,
      @RequestParam(name = "gpu_model", required = false) String gpuModel) {
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
    PlacementService.Decision decision = placement.check(caller.userId(), offering);
    return new Availability(offering, decision.placement().gpuModel(), decision.placement().mode(),
        decision.pricePerHour(), decision.placement().clusterId(), decision.placement().hostname());
  }
}
