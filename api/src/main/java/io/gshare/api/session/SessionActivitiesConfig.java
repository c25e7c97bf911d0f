package io.gshare.api.session;

import io.gshare.activities.control.IdleReaperActivitiesImpl;
import io.gshare.activities.control.MeteringActivitiesImpl;
import io.gshare.activities.control.SessionControlActivitiesImpl;
import io.gshare.api.temporal.ControlWorker;
import io.gshare.core.credit.BillingWindows;
import io.gshare.core.placement.PlacementService;
import io.gshare.core.session.IdleSessions;
import io.gshare.core.session.SessionRepository;
import java.time.Clock;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/** The session, metering and idle-reaper activities, on the same domain services as the HTTP layer. */
@Configuration(proxyBeanMethods = false)
class SessionActivitiesConfig {

  @Bean
  ControlWorker.ControlActivities sessionControlActivities(SessionRepository sessions,
      BillingWindows billing, PlacementService placement, TransactionTemplate transactions, IdleSessions idle,
      IdleReaperProperties idleReaper) {
    return new ControlWorker.ControlActivities(List.of(
        new SessionControlActivitiesImpl(sessions, billing, placement, transactions),
        new MeteringActivitiesImpl(billing, Clock.systemUTC()),
        new IdleReaperActivitiesImpl(idle, Clock.systemUTC(), idleReaper.staleAfter())));
  }
}
