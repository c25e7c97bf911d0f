package io.gshare.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NamingTest {

  @Test
  void queuesAndIdsAreDerivedFromTheObject() {
    assertThat(TaskQueues.cluster("clu_01abc")).isEqualTo("gshare-cluster-clu_01abc");
    assertThat(TaskQueues.clusterIdOf("gshare-cluster-clu_01abc")).isEqualTo("clu_01abc");
    assertThat(TaskQueues.clusterIdOf(TaskQueues.CONTROL)).isNull();
    assertThat(WorkflowIds.clusterAttach("clu_01abc")).isEqualTo("cluster-attach-clu_01abc");
    assertThat(WorkflowIds.session("ses_9")).isEqualTo("session-ses_9");
  }

  @Test
  void idsThatWouldBreakQueueNamesOrLabelsAreRefused() {
    assertThatThrownBy(() -> TaskQueues.cluster("Clu/../x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WorkflowIds.session("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WorkflowIds.session(null)).isInstanceOf(IllegalArgumentException.class);
    assertThat(Ids.isValid("a".repeat(64))).isFalse();
  }
}
