package io.gshare.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpecBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DisruptionBudgetsTest {

  @Test
  void selectorsFollowPolicyV1() {
    Map<String, String> web = Map.of("app", "web", "tier", "front");
    assertThat(DisruptionBudgets.selects(null, web)).as("a null selector picks nothing").isFalse();
    assertThat(DisruptionBudgets.selects(new LabelSelector(), web)).as("an empty one picks every pod").isTrue();
    assertThat(DisruptionBudgets.selects(labels("app", "web"), web)).isTrue();
    assertThat(DisruptionBudgets.selects(labels("app", "db"), web)).isFalse();
    assertThat(DisruptionBudgets.selects(labels("app", "web"), null)).isFalse();

    assertThat(DisruptionBudgets.selects(expression("tier", "In", "front", "back"), web)).isTrue();
    assertThat(DisruptionBudgets.selects(expression("tier", "In", "back"), web)).isFalse();
    assertThat(DisruptionBudgets.selects(expression("tier", "NotIn", "back"), web)).isTrue();
    assertThat(DisruptionBudgets.selects(expression("tier", "NotIn", "front"), web)).isFalse();
    assertThat(DisruptionBudgets.selects(expression("zone", "NotIn", "a"), web)).as("NotIn holds for a missing key").isTrue();
    assertThat(DisruptionBudgets.selects(expression("tier", "Exists"), web)).isTrue();
    assertThat(DisruptionBudgets.selects(expression("zone", "Exists"), web)).isFalse();
    assertThat(DisruptionBudgets.selects(expression("zone", "DoesNotExist"), web)).isTrue();
    assertThat(DisruptionBudgets.selects(expression("app", "DoesNotExist"), web)).isFalse();
    assertThat(DisruptionBudgets.selects(expression("app", "Gt", "1"), web)).as("unknown operator").isFalse();

    LabelSelector both = new LabelSelectorBuilder().addToMatchLabels("app", "web")
        .addNewMatchExpression().withKey("tier").withOperator("In").withValues("back").endMatchExpression().build();
    assertThat(DisruptionBudgets.selects(both, web)).as("labels and expressions must all hold").isFalse();
  }

  @Test
  void desiredHealthyRoundsPercentagesUp() {
    assertThat(DisruptionBudgets.desiredHealthy(min(new IntOrString(2)), 5)).isEqualTo(2);
    assertThat(DisruptionBudgets.desiredHealthy(min(new IntOrString("50%")), 3)).isEqualTo(2);
    assertThat(DisruptionBudgets.desiredHealthy(min(new IntOrString("34%")), 3)).isEqualTo(2);
    assertThat(DisruptionBudgets.desiredHealthy(min(new IntOrString("100%")), 4)).isEqualTo(4);
    assertThat(DisruptionBudgets.desiredHealthy(max(new IntOrString(1)), 3)).isEqualTo(2);
    // maxUnavailable 50% of 3 rounds up to 2 unavailable, so 1 must stay healthy
    assertThat(DisruptionBudgets.desiredHealthy(max(new IntOrString("50%")), 3)).isEqualTo(1);
    assertThat(DisruptionBudgets.desiredHealthy(max(new IntOrString(5)), 3)).isZero();
    assertThat(DisruptionBudgets.desiredHealthy(new PodDisruptionBudgetSpec(), 3)).isZero();
    assertThatThrownBy(() -> DisruptionBudgets.desiredHealthy(min(new IntOrString("two")), 3))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(DisruptionBudgets.countsSelectedPods(min(new IntOrString(2)))).isTrue();
    assertThat(DisruptionBudgets.countsSelectedPods(min(new IntOrString("50%")))).isFalse();
    assertThat(DisruptionBudgets.countsSelectedPods(max(new IntOrString(1)))).isFalse();

    assertThat(DisruptionBudgets.disruptionsAllowed(3, 2)).isEqualTo(1);
    assertThat(DisruptionBudgets.disruptionsAllowed(2, 2)).isZero();
    assertThat(DisruptionBudgets.disruptionsAllowed(1, 2)).isZero();
  }

  private static LabelSelector labels(String key, String value) {
    return new LabelSelectorBuilder().addToMatchLabels(key, value).build();
  }

  private static LabelSelector expression(String key, String operator, String... values) {
    return new LabelSelectorBuilder().addNewMatchExpression().withKey(key).withOperator(operator).withValues(values)
        .endMatchExpression().build();
  }

  private static PodDisruptionBudgetSpec min(IntOrString value) {
    return new PodDisruptionBudgetSpecBuilder().withMinAvailable(value).build();
  }

  private static PodDisruptionBudgetSpec max(IntOrString value) {
    return new PodDisruptionBudgetSpecBuilder().withMaxUnavailable(value).build();
  }
}
