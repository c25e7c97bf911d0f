package io.gshare.core.policy;

import java.math.BigDecimal;

/**
 * What a team may do; the default applies to users without a team or a team without its own.
 *
 * @param teamId null for the default policy
 * @param maxConcurrentSessions null: no limit
 * @param maxRuntimeMinutes null: no limit; {@code maxRuntimeAction} says whether a session then pauses or ends
 * @param idleTimeoutMinutes null: never reaped for idleness
 * @param idleTimeoutMinutesFractional the idle timeout of fractional sessions (a slice of a card); null: the same as
 *     {@code idleTimeoutMinutes}
 * @param overflow {@code shared_pool}: sessions may run on the shared pool when the team's pool is full or empty
 * @param placement {@code binpack} (fill GPUs, keep whole ones free) or {@code spread}
 * @param minBalanceToStart credits a user needs to start a session
 * @param volumeQuotaGb GiB of volumes (not deleted) each user may hold; null: no limit
 * @param volumeQuotaCount volumes (not deleted) each user may hold; null: no limit
 * @param teamVolumeQuotaGb GiB of volumes the team's users may hold together; null: no limit
 * @param teamVolumeQuotaCount volumes the team's users may hold together; null: no limit
 */
public record Policy(String teamId, Integer maxConcurrentSessions, Integer maxRuntimeMinutes, String maxRuntimeAction,
    Integer idleTimeoutMinutes, Integer idleTimeoutMinutesFractional, String overflow, String placement, BigDecimal minBalanceToStart,
    Integer volumeQuotaGb, Integer volumeQuotaCount, Integer teamVolumeQuotaGb, Integer teamVolumeQuotaCount) {

  /** When no default policy row exists: no limits, overflow allowed, binpack. */
  public static final Policy BUILT_IN = new Policy(null, null, null, "pause", null, null, "shared_pool", "binpack", BigDecimal.ZERO,
      null, null, null, null);

  /** The idle timeout of a session of {@code mode} ({@code exclusive} or {@code fractional}); null: never reaped. */
  public Integer idleTimeoutMinutesFor(String mode) {
    return "fractional".equals(mode) && idleTimeoutMinutesFractional != null ? idleTimeoutMinutesFractional
        : idleTimeoutMinutes;
  }

  public boolean mayOverflow() {
    return "shared_pool".equals(overflow);
  }
}
