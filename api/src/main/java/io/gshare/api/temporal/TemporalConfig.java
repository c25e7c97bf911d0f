package io.gshare.api.temporal;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The Temporal connection; the SDK's metrics go to the same Micrometer registry as the api's. */
@Configuration(proxyBeanMethods = false)
class TemporalConfig {

  @Bean(destroyMethod = "close")
  Scope temporalMetricsScope(MeterRegistry registry) {
    return new RootScopeBuilder()
        .reporter(new MicrometerClientStatsReporter(registry))
        .reportEvery(Duration.ofSeconds(10));
  }

  @Bean(destroyMethod = "shutdown")
  WorkflowServiceStubs workflowServiceStubs(TemporalProperties properties, Scope temporalMetricsScope) {
    // Connects lazily: the api starts (and /healthz answers) even while Temporal is still coming up.
    return WorkflowServiceStubs.newServiceStubs(properties.auth().applyTo(
        WorkflowServiceStubsOptions.newBuilder()
            .setTarget(properties.address())
            .setMetricsScope(temporalMetricsScope))
        .build());
  }

  @Bean
  ScheduleClient scheduleClient(WorkflowServiceStubs stubs, TemporalProperties properties) {
    return ScheduleClient.newInstance(stubs, ScheduleClientOptions.newBuilder().setNamespace(properties.namespace()).build());
  }

  @Bean
  WorkflowClient workflowClient(WorkflowServiceStubs stubs, TemporalProperties properties) {
    return WorkflowClient.newInstance(
        stubs, WorkflowClientOptions.newBuilder().setNamespace(properties.namespace()).build());
  }
}
