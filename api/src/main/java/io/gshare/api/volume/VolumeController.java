package io.gshare.api.volume;

import io.gshare.core.error.GshareException;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import io.gshare.core.volume.VolumeRepository;
import io.gshare.core.volume.VolumeRepository.Volume;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "volumes")
class VolumeController {

  private final VolumeRepository volumes;
  private final Access access;

  VolumeController(VolumeRepository volumes, Access access) {
    this.volumes = volumes;
    this.access = access;
  }

  record VolumeList(List<Volume> items) {}

  @GetMapping("/api/v1/volumes")
  @Operation(summary = "Your volumes (admins: everyone's)")
  VolumeList list(Caller.User caller) {
    return new VolumeList(volumes.list(caller.isAdmin() ? null : caller.userId()));
  }

  @GetMapping("/api/v1/volumes/{id}")
  @Operation(summary = "One volume (yours, or any for admins)")
  Volume get(Caller.User caller, @PathVariable String id) {
    Volume volume = volumes.findById(id).orElseThrow(() -> GshareException.notFound("volume", id));
    access.requireOwnerOrAdmin(caller, "volume", id, volume.ownerId());
    return volume;
  }
}
