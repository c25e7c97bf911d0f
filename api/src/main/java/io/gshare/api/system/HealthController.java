package io.gshare.api.system;

import io.gshare.api.security.OpenPaths;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Liveness only, as the operator guide says: it touches neither Postgres nor Temporal. */
@RestController
@Tag(name = "system")
class HealthController {

  @GetMapping(OpenPaths.HEALTHZ)
  @Operation(summary = "Liveness probe: 200 while the process serves requests")
  Map<String, String> healthz() {
    return Map.of("status", "ok");
  }
}
