package io.gshare.sim;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic of a policy/v1 PodDisruptionBudget, as the disruption controller does it: which pods a
 * selector picks, which pods count as healthy, how many must stay healthy.
 */
final class DisruptionBudgets {

  private DisruptionBudgets() {}

  /**
   * policy/v1 semantics: a null selector picks no pod, an empty one every pod of the namespace;
   * {@code matchLabels} and {@code matchExpressions} (In, NotIn, Exists, DoesNotExist) must all hold.
   * A selector with an unknown operator picks nothing, as an invalid selector does.
   */
  static boolean selects(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> want : selector.getMatchLabels().entrySet()) {
        if (!want.getValue().equals(have.get(want.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement requirement : selector.getMatchExpressions()) {
        if (!holds(requirement, have)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean holds(LabelSelectorRequirement requirement, Map<String, String> labels) {
    String value = labels.get(requirement.getKey());
    List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
    return switch (String.valueOf(requirement.getOperator())) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      default -> false;
    };
  }

  /** Ready (condition Ready=True), running and not being deleted: what the controller counts healthy. */
  static boolean healthy(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() == null && pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase()) && ready(pod);
  }

  static boolean ready(Pod pod) {
    return pod.getStatus() != null && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** True when the budget's expected count is the number of selected pods (an integer minAvailable). */
  static boolean countsSelectedPods(PodDisruptionBudgetSpec spec) {
    return spec.getMaxUnavailable() == null && (spec.getMinAvailable() == null || !isPercent(spec.getMinAvailable()));
  }

  /**
   * How many of {@code expected} pods must stay healthy: {@code minAvailable} (a percentage of
   * {@code expected}, rounded up), else {@code expected - maxUnavailable} (a percentage rounded up),
   * never below 0; 0 when the budget sets neither.
   */
  static int desiredHealthy(PodDisruptionBudgetSpec spec, int expected) {
    if (spec.getMaxUnavailable() != null) {
      return Math.max(0, expected - scaled(spec.getMaxUnavailable(), expected));
    }
    if (spec.getMinAvailable() != null) {
      return scaled(spec.getMinAvailable(), expected);
    }
    return 0;
  }

  /** How many disruptions the budget allows now: healthy pods beyond the desired count. */
  static int disruptionsAllowed(int currentHealthy, int desiredHealthy) {
    return Math.max(0, currentHealthy - desiredHealthy);
  }

  /**
   * An integer as is, a percentage of {@code total} rounded up (Kubernetes'
   * GetScaledValueFromIntOrPercent); a string that is no percentage is invalid.
   */
  static int scaled(IntOrString value, int total) {
    if (value.getIntVal() != null) {
      return value.getIntVal();
    }
    if (!isPercent(value)) {
      throw new IllegalArgumentException("invalid value for IntOrString: " + value.getStrVal() + " is not a percentage");
    }
    String percent = value.getStrVal().substring(0, value.getStrVal().length() - 1);
    try {
      return (int) Math.ceil(Integer.parseInt(percent) * (double) total / 100.0);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid value for IntOrString: " + value.getStrVal());
    }
  }

  private static boolean isPercent(IntOrString value) {
    return value.getIntVal() == null && value.getStrVal() != null && value.getStrVal().endsWith("%");
  }
}
