package io.gshare.workflows.kube;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The labels of an object gShare makes in a cluster, as an immutable value (after Strimzi's
 * {@code operator-common/.../model/Labels.java}): each {@code with…} returns a new instance, so a base set
 * can be shared and extended. Keys come from {@link LabelKeys} only; values are checked against
 * Kubernetes' rule for label values, so a bad one fails here rather than at the apiserver.
 */
public final class Labels {

  /**
   * The keys of a workload's selector: given with the object's name and never changed afterwards, as
   * a Deployment's selector cannot change. Everything else (managed-by, the cluster id) may.
   */
  public static final Set<String> SELECTOR_KEYS = Set.of(LabelKeys.NAME, LabelKeys.PART_OF);

  public static final Labels EMPTY = new Labels(Map.of());

  private static final Pattern VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
  private static final int MAX_VALUE_LENGTH = 63;

  /** Insertion ordered, never modified. */
  private final Map<String, String> labels;

  private Labels(Map<String, String> labels) {
    this.labels = labels;
  }

  /** {@code app.kubernetes.io/managed-by=gshare} alone: what gShare manages; lists and informers are scoped by it. */
  public static Labels managedByGshare() {
    return EMPTY.with(LabelKeys.MANAGED_BY, LabelKeys.GSHARE);
  }

  /** managed-by and part-of {@code gshare}: the base of every object gShare makes for a session or a worker. */
  public static Labels gshare() {
    return managedByGshare().with(LabelKeys.PART_OF, LabelKeys.GSHARE);
  }

  public Labels withName(String name) {
    return with(LabelKeys.NAME, name);
  }

  public Labels withComponent(String component) {
    return with(LabelKeys.COMPONENT, component);
  }

  public Labels withSession(String sessionId) {
    return with(LabelKeys.SESSION_ID, sessionId);
  }

  public Labels withUser(String userId) {
    return with(LabelKeys.USER_ID, userId);
  }

  public Labels withVolume(String volumeId) {
    return with(LabelKeys.VOLUME_ID, volumeId);
  }

  public Labels withCluster(String clusterId) {
    return with(LabelKeys.CLUSTER_ID, clusterId);
  }

  public Labels withCheckpointOf(String sessionId) {
    return with(LabelKeys.CHECKPOINT_OF, sessionId);
  }

  private Labels with(String key, String value) {
    Objects.requireNonNull(value, () -> "label " + key + " has no value");
    if (value.length() > MAX_VALUE_LENGTH || !VALUE.matcher(value).matches()) {
      throw new IllegalArgumentException("label " + key + "='" + value
          + "' is not a label value (at most 63 of A-Z a-z 0-9 - _ ., alphanumeric at both ends)");
    }
    Map<String, String> copy = new LinkedHashMap<>(labels);
    copy.put(key, value);
    return new Labels(Collections.unmodifiableMap(copy));
  }

  /** The subset under {@link #SELECTOR_KEYS}, for a workload's selector and its pod template's match. */
  public Labels selectorLabels() {
    Map<String, String> subset = new LinkedHashMap<>();
    labels.forEach((k, v) -> {
      if (SELECTOR_KEYS.contains(k)) {
        subset.put(k, v);
      }
    });
    return new Labels(Collections.unmodifiableMap(subset));
  }

  /** An unmodifiable view, in the order the labels were added; fabric8 copies it into the object. */
  public Map<String, String> toMap() {
    return labels;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Labels other && labels.equals(other.labels);
  }

  @Override
  public int hashCode() {
    return labels.hashCode();
  }

  @Override
  public String toString() {
    return "Labels" + labels;
  }
}
