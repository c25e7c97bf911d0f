package io.gshare.api.volume;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.volume.ExpansionStatus;
import io.gshare.core.volume.VolumeExpansionRepository;
import io.gshare.core.volume.VolumeExpansionRepository.Expansion;
import io.gshare.core.volume.VolumeRules;
import io.gshare.core.volume.Volumes;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The admins' side of volume expansion: the queue of requests, approve (the volume sync applies it) and reject. */
@RestController
@RequestMapping("/api/v1/volume-expansions")
@Tag(name = "volumes")
class VolumeExpansionController {

  private final Volumes volumes;
  private final VolumeExpansionRepository expansions;

  VolumeExpansionController(Volumes volumes, VolumeExpansionRepository expansions) {
    this.volumes = volumes;
    this.expansions = expansions;
  }

  record Rejection(@NotBlank @Size(max = 1000) String reason) {}

  record ExpansionList(List<Expansion> items) {}

  @GetMapping
  @Operation(summary = "Expansion requests, oldest first (admins); status requested, approved, rejected or applied")
  @AdminOnly
  ExpansionList list(Caller.User caller, @RequestParam(required = false) String status,
      @RequestParam(name = "volume_id", required = false) String volumeId) {
    if (status != null && ExpansionStatus.fromWire(status).isEmpty()) {
      throw VolumeRules.invalid("status", "must be requested, approved, rejected or applied");
    }
    return new ExpansionList(expansions.list(status, volumeId));
  }

  @GetMapping("/{id}")
  @Operation(summary = "One expansion request (admins)")
  @AdminOnly
  Expansion get(Caller.User caller, @PathVariable String id) {
    return expansions.findById(id).orElseThrow(() -> GshareException.notFound("volume expansion", id));
  }

  @PostMapping("/{id}/approve")
  @Operation(summary = "Approve (admins): the volume becomes expanding with requested_size_gb, quota and pool capacity"
      + " checked again; the volume sync grows its claims")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.INSUFFICIENT_STORAGE, ProblemCode.QUOTA_EXCEEDED})
  Expansion approve(Caller.User caller, @PathVariable String id) {
    return volumes.approve(caller.actor(), id);
  }

  @PostMapping("/{id}/reject")
  @Operation(summary = "Reject (admins), saying why")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  Expansion reject(Caller.User caller, @PathVariable String id, @Valid @RequestBody Rejection body) {
    return volumes.reject(caller.actor(), id, body.reason().strip());
  }
}
