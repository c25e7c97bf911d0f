package io.gshare.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.workflows.session.MeteringWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.ScheduleActionExecutionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** On a real Temporal server the api creates the metering Schedule at boot, and it fires the sweep. */
class MeteringScheduleIT extends ApiIntegrationTest {

  @Autowired ScheduleClient schedules;
  @Autowired WorkflowClient workflows;

  @Test
  void theMeteringScheduleExistsAfterBootAndFiresTheSweep() {
    ScheduleHandle handle = schedules.getHandle(MeteringWorkflow.ID);
    ScheduleDescription described = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(handle::describe, d -> d != null);
    assertThat(described.getSchedule().getSpec().getIntervals()).extracting(ScheduleIntervalSpec::getEvery)
        .containsExactly(Duration.ofMinutes(1));
    assertThat(described.getSchedule().getState().isPaused()).isFalse();

    handle.trigger();
    ScheduleDescription fired = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
        .until(handle::describe, d -> d.getInfo().getNumActions() >= 1 && !d.getInfo().getRecentActions().isEmpty());
    ScheduleActionExecutionStartWorkflow started =
        (ScheduleActionExecutionStartWorkflow) fired.getInfo().getRecentActions().get(0).getAction();
    assertThat(started.getWorkflowId()).startsWith(MeteringWorkflow.ID);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
        workflows.newUntypedWorkflowStub(started.getWorkflowId(), Optional.of(started.getFirstExecutionRunId()),
                Optional.empty())
            .describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  }
}
