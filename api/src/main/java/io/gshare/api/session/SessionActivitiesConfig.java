package io.gshare.api.session;

import io.gshare.activities.control.BillingWindows;
import io.gshare.activities.control.CreditLedger;
import io.gshare.activities.control.MeteringActivitiesImpl;
import io.gshare.activities.control.SessionControlActivitiesImpl;
import io.gshare.api.error.GshareException;
import io.gshare.api.placement.PlacementService;
import io.gshare.api.temporal.ControlWorker;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/** The session and metering activities, wired to the api's placement and ledger. */
@Configuration(proxyBeanMethods = false)
class SessionActivitiesConfig {

  @Bean
  BillingWindows billingWindows(JdbcClient jdbc, CreditLedger ledger, TransactionTemplate transactions) {
    return new BillingWindows(jdbc, ledger, Clock.systemUTC(), transactions);
  }

  @Bean
  ControlWorker.ControlActivities sessionControlActivities(JdbcClient jdbc, BillingWindows billing,
      PlacementService placement, TransactionTemplate transactions) {
    SessionControlActivitiesImpl session = new SessionControlActivitiesImpl(jdbc, billing, sessionId -> {
      record Ask(String userId, String offeringId, String clusterId) {}
      Ask ask = jdbc.sql("select user_id, offering_id, cluster_id from sessions where id = :id").param("id", sessionId)
          .query((rs, n) -> new Ask(rs.getString(1), rs.getString(2), rs.getString(3))).single();
      try {
        // Whatever this session held is given back and asked for anew in one transaction: a retried
        // attempt must not free its GPUs for someone else between the two. A session lives on one
        // cluster: its URL, its volume's claim and its checkpoint are there.
        return transactions.execute(tx -> {
          placement.release(sessionId);
          return placement.allocate(new PlacementService.Request(sessionId, ask.userId(), ask.offeringId(), ask.clusterId()))
              .placement();
        });
      } catch (GshareException refused) {
        throw ApplicationFailure.newNonRetryableFailure(refused.getMessage(), refused.code().code());
      }
    });
    return new ControlWorker.ControlActivities(List.of(session,
        new MeteringActivitiesImpl(jdbc, billing, Clock.systemUTC())));
  }
}
