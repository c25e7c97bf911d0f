package io.gshare.api.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

class TemporalHealthIndicatorTest {

  @Test
  void aTemporalThatDoesNotAnswerIsDownWithTheReason() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort(); // closed again: nothing listens there
    }
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + port).build());
    try {
      TemporalProperties properties = new TemporalProperties("127.0.0.1:" + port, "default",
          Duration.ofSeconds(5), 600, "", "", "", "", "", "");
      Health health = new TemporalHealthIndicator(stubs, properties).health();
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails()).containsEntry("address", "127.0.0.1:" + port).containsKey("error");
    } finally {
      stubs.shutdownNow();
    }
  }
}
