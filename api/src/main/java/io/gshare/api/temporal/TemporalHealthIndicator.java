package io.gshare.api.temporal;

import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness's Temporal part ({@code temporal} in the readiness group): the frontend answers and knows gShare's
 * namespace, within two seconds. Liveness ({@code /healthz}) never asks it.
 */
@Component("temporal")
class TemporalHealthIndicator implements HealthIndicator {

  private final WorkflowServiceStubs stubs;
  private final TemporalProperties properties;

  TemporalHealthIndicator(WorkflowServiceStubs stubs, TemporalProperties properties) {
    this.stubs = stubs;
    this.properties = properties;
  }

  @Override
  public Health health() {
    try {
      stubs.blockingStub().withDeadlineAfter(2, TimeUnit.SECONDS)
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(properties.namespace()).build());
      return Health.up().withDetail("address", properties.address()).withDetail("namespace", properties.namespace())
          .build();
    } catch (RuntimeException e) {
      return Health.down().withDetail("address", properties.address())
          .withDetail("error", e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()).build();
    }
  }
}
