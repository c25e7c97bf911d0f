package io.gshare.api.alert;

import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.alert.Alerts;
import io.gshare.core.alert.Alerts.Alert;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "alerts")
class AlertController {

  private final Alerts alerts;

  AlertController(Alerts alerts) {
    this.alerts = alerts;
  }

  record AlertPage(List<Alert> items) {}

  @GetMapping("/api/v1/alerts")
  @Operation(summary = "Admin alerts, newest first (admins): node offline, operator token expiring, volume reclaim"
      + " stopped; status firing or resolved, and whether the webhook took them (delivered_status)")
  @AdminOnly
  AlertPage list(Caller.User caller, @RequestParam(required = false) String status,
      @RequestParam(defaultValue = "100") int limit) {
    if (status != null && !status.equals("firing") && !status.equals("resolved")) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "status must be firing or resolved");
    }
    if (limit < 1 || limit > 1000) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    return new AlertPage(alerts.list(status, limit));
  }
}
