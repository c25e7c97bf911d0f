package io.gshare.api.credit;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.Access;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.credit.CreditLedger;
import io.gshare.core.credit.CreditLedger.Entry;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.support.NewIds;
import io.gshare.core.user.UserRepository;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "credits")
class CreditController {

  private final CreditLedger ledger;
  private final UserRepository users;
  private final Access access;

  CreditController(CreditLedger ledger, UserRepository users, Access access) {
    this.ledger = ledger;
    this.users = users;
    this.access = access;
  }

  record Credits(String userId, String accountId, BigDecimal balance, List<Entry> entries) {}

  /** @param idempotencyKey the same key twice books one grant (also accepted as the Idempotency-Key header) */
  record Grant(@NotBlank String userId, @NotNull @DecimalMin(value = "0", inclusive = false) @DecimalMax("1000000000")
      BigDecimal amount, @Size(max = 500) String description, @Size(min = 1, max = 150) String idempotencyKey) {}

  record Granted(long entryId, boolean created, BigDecimal balance) {}

  @GetMapping("/api/v1/credits")
  @Transactional
  @Operation(summary = "Your balance and latest ledger entries (admins: any user's with user_id)")
  @ProblemResponses({ProblemCode.FORBIDDEN, ProblemCode.NOT_FOUND})
  Credits get(Caller.User caller, @RequestParam(name = "user_id", required = false) String userId,
      @RequestParam(defaultValue = "100") int limit) {
    String user = userId == null ? caller.userId() : userId;
    if (!user.equals(caller.userId())) {
      access.requireAdmin(caller, "credits", user);
    }
    if (limit < 1 || limit > 1000) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    requireUser(user);
    String account = ledger.accountOf(user);
    List<Entry> entries = ledger.entries(account, limit);
    return new Credits(user, account, ledger.balance(account), entries);
  }

  @PostMapping("/api/v1/credits/grants")
  @Transactional
  @Operation(summary = "Grant credits to a user (admins); idempotent per key: a retry books nothing twice")
  @ApiResponse(responseCode = "201", description = "booked")
  @ApiResponse(responseCode = "200", description = "this key was booked before: nothing booked again")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.NOT_FOUND})
  ResponseEntity<Granted> grant(Caller.User caller, @Valid @RequestBody Grant body,
      @RequestHeader(name = "Idempotency-Key", required = false) String headerKey) {
    requireUser(body.userId());
    String key = body.idempotencyKey() != null ? body.idempotencyKey() : headerKey != null ? headerKey : NewIds.next("grant");
    CreditLedger.Booked booked;
    try {
      booked = ledger.grant(body.userId(), body.amount(), key, body.description(), caller.userId());
    } catch (IllegalStateException e) {
      throw new GshareException(ProblemCode.CONFLICT, e.getMessage());
    }
    BigDecimal balance = ledger.balance(ledger.accountOf(body.userId()));
    return ResponseEntity.status(booked.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(new Granted(booked.entryId(), booked.created(), balance));
  }

  private void requireUser(String userId) {
    if (!users.exists(userId)) {
      throw GshareException.notFound("user", userId);
    }
  }
}
