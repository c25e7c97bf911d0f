package io.gshare.client.credit;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/** {@code /api/v1/credits}: a user's balance and ledger, and grants. */
public final class Credits {

  private final GshareClient api;

  public Credits(GshareClient api) {
    this.api = api;
  }

  /** {@code userId}'s balance and latest entries (null: the caller's). */
  public Account of(String userId) {
    return api.get(ApiPaths.query(ApiPaths.CREDITS, "user_id", userId), Account.class);
  }

  /** Grants credits; the same idempotency key grants once however often it is sent. */
  public Granted grant(Grant grant) {
    return api.post(ApiPaths.CREDIT_GRANTS, grant, Granted.class);
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Account(String userId, String accountId, BigDecimal balance, List<Entry> entries) {
    public Account {
      entries = entries == null ? List.of() : List.copyOf(entries);
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Entry(Long id, BigDecimal amount, String kind, String sessionId, String description,
      Instant createdAt) {}

  /** {@code POST /api/v1/credits/grants}'s body. */
  public record Grant(String userId, BigDecimal amount, String description, String idempotencyKey) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Granted(Long entryId, boolean created, BigDecimal balance) {}
}
