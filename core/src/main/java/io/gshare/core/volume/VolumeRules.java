package io.gshare.core.volume;

import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.policy.Policy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The volume API's rules that need no database: names and sizes, a policy's volume quotas, and a
 * storage pool's capacity. Sizes are GiB ({@code size_gb} becomes the claim's {@code <n>Gi}).
 */
public final class VolumeRules {

  /** A DNS label: the volume's name appears in its claims' labels and in the console. */
  public static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  public static final int MAX_SIZE_GB = 100_000;
  public static final long GIB = 1L << 30;

  private VolumeRules() {}

  public static void requireName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw invalid("name", "must be a DNS label: lower-case letters, digits and '-', 1 to 63 characters,"
          + " starting and ending with a letter or digit");
    }
  }

  public static void requireSize(Integer sizeGb) {
    if (sizeGb == null || sizeGb < 1 || sizeGb > MAX_SIZE_GB) {
      throw invalid("size_gb", "must be between 1 and " + MAX_SIZE_GB + " (GiB)");
    }
  }

  /** GiB and number of volumes held. */
  public record Usage(long gb, long count) {}

  /** A policy's volume quotas; null: no limit. */
  public record Limits(Integer userGb, Integer userCount, Integer teamGb, Integer teamCount) {

    public static Limits of(Policy policy) {
      return new Limits(policy.volumeQuotaGb(), policy.volumeQuotaCount(), policy.teamVolumeQuotaGb(),
          policy.teamVolumeQuotaCount());
    }

    public boolean teamLimited() {
      return teamGb != null || teamCount != null;
    }
  }

  /**
   * Refuses with 409 {@code quota_exceeded} when adding {@code addGb} GiB and {@code addCount} volumes to
   * what the user (and their team) hold goes beyond the policy.
   *
   * @param team the team's use, or null for a user in no team (team quotas do not apply)
   */
  public static void checkQuota(Limits limits, Usage user, Usage team, long addGb, long addCount) {
    if (addCount > 0 && limits.userCount() != null && user.count() + addCount > limits.userCount()) {
      throw exceeded("volume_quota_count", "your policy allows " + limits.userCount() + " volume(s) per user and you have "
          + user.count(), limits.userCount(), user.count(), addCount);
    }
    if (addGb > 0 && limits.userGb() != null && user.gb() + addGb > limits.userGb()) {
      throw exceeded("volume_quota_gb", "your policy allows " + limits.userGb() + " GiB of volumes per user and you have "
          + user.gb() + " GiB; this needs " + addGb + " GiB more", limits.userGb(), user.gb(), addGb);
    }
    if (team == null) {
      return;
    }
    if (addCount > 0 && limits.teamCount() != null && team.count() + addCount > limits.teamCount()) {
      throw exceeded("team_volume_quota_count", "your team's policy allows " + limits.teamCount()
          + " volume(s) for the team and its users have " + team.count(), limits.teamCount(), team.count(), addCount);
    }
    if (addGb > 0 && limits.teamGb() != null && team.gb() + addGb > limits.teamGb()) {
      throw exceeded("team_volume_quota_gb", "your team's policy allows " + limits.teamGb()
          + " GiB of volumes for the team and its users have " + team.gb() + " GiB; this needs " + addGb + " GiB more",
          limits.teamGb(), team.gb(), addGb);
    }
  }

  /**
   * A pool's total capacity in whole GiB from its source, or null while the source has not been reported
   * (csi and node_disk come from the volume sync of the pool's source cluster).
   */
  public static Long totalGb(CapacitySource source, Integer manualGb, Long csiBytes, Long nodeDiskBytes) {
    return switch (source) {
      case MANUAL -> manualGb == null ? null : manualGb.longValue();
      case CSI -> csiBytes == null ? null : csiBytes / GIB;
      case NODE_DISK -> nodeDiskBytes == null ? null : nodeDiskBytes / GIB;
    };
  }

  /** What a pool has left; never below zero (a manual capacity lowered under the allocation shows 0). */
  public static Long freeGb(Long totalGb, long allocatedGb) {
    return totalGb == null ? null : Math.max(0, totalGb - allocatedGb);
  }

  /** Refuses with 409 {@code insufficient_storage} when the pool cannot take {@code addGb} GiB more, or its capacity is not known. */
  public static void checkCapacity(String poolId, String poolName, CapacitySource source, Long totalGb, long allocatedGb,
      long addGb) {
    if (totalGb == null) {
      throw new GshareException(ProblemCode.INSUFFICIENT_STORAGE, "storage pool " + poolName + " cannot take volumes yet:"
          + " its capacity (source " + source.wireName() + ") has not been reported by its source cluster's volume sync"
          + (source == CapacitySource.CSI ? " (no CSIStorageCapacity of its StorageClass)" : "")
          + "; an admin can set capacity_source manual with manual_capacity_gb",
          Map.of("pool_id", poolId, "capacity_source", source.wireName()));
    }
    long free = freeGb(totalGb, allocatedGb);
    if (addGb > free) {
      throw new GshareException(ProblemCode.INSUFFICIENT_STORAGE, "storage pool " + poolName + " has " + free
          + " GiB free of " + totalGb + " GiB; this needs " + addGb + " GiB",
          Map.of("pool_id", poolId, "free_gb", free, "requested_gb", addGb));
    }
  }

  private static GshareException exceeded(String quota, String detail, long limit, long used, long requested) {
    Map<String, Object> extras = new LinkedHashMap<>();
    extras.put("quota", quota);
    extras.put("limit", limit);
    extras.put("used", used);
    extras.put("requested", requested);
    return new GshareException(ProblemCode.QUOTA_EXCEEDED, detail, extras);
  }

  /** 422 naming the field, as bean validation answers. */
  public static GshareException invalid(String field, String message) {
    return new GshareException(ProblemCode.VALIDATION_FAILED, field + " " + message,
        Map.of("errors", List.of(Map.of("field", field, "message", message))));
  }
}
