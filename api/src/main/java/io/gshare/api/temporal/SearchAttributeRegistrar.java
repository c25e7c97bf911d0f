package io.gshare.api.temporal;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.workflows.common.SearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

/**
 * Registers gShare's search attributes ({@code GshareClusterId}, …) so operations can be found in the
 * Temporal UI. Idempotent: ALREADY_EXISTS counts as done. While Temporal is unreachable it retries in
 * the background instead of holding up start.
 *
 * <p>The first attempt runs once the beans exist and before the web server and the workers start, so
 * no request can start a workflow naming an attribute the namespace does not know yet (a fresh dev
 * server forgets them on every restart).
 */
@Component
class SearchAttributeRegistrar implements SmartInitializingSingleton {

  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistrar.class);

  private final WorkflowServiceStubs stubs;
  private final TemporalProperties properties;
  private final ScheduledExecutorService retry = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "gshare-search-attributes");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean registered;

  SearchAttributeRegistrar(WorkflowServiceStubs stubs, TemporalProperties properties) {
    this.stubs = stubs;
    this.properties = properties;
  }

  @Override
  public void afterSingletonsInstantiated() {
    attempt();
  }

  boolean isRegistered() {
    return registered;
  }

  private void attempt() {
    try {
      register();
      registered = true;
      retry.shutdown();
    } catch (StatusRuntimeException e) {
      log.warn("could not register search attributes yet ({}); retrying in 10s", e.getStatus().getCode());
      retry.schedule(this::attempt, 10, TimeUnit.SECONDS);
    }
  }

  void register() {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(
        OperatorServiceStubsOptions.newBuilder().setChannel(stubs.getRawChannel()).validateAndBuildWithDefaults());
    try {
      // One at a time: a request naming an existing attribute fails whole, leaving the new ones out.
      for (var key : SearchAttributes.ALL) {
        try {
          operator.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS).addSearchAttributes(
              AddSearchAttributesRequest.newBuilder()
                  .setNamespace(properties.namespace())
                  .putSearchAttributes(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD)
                  .build());
          log.info("registered search attribute {}", key.getName());
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
            throw e;
          }
        }
      }
    } finally {
      operator.shutdown();
    }
  }
}
