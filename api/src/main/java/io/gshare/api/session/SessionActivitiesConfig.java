package io.gshare.api.session;

import io.gshare.activities.control.IdleReaperActivitiesImpl;
import io.gshare.activities.control.MeteringActivitiesImpl;
import io.gshare.activities.control.SessionControlActivitiesImpl;
import io.gshare.core.credit.BillingWindows;
import io.gshare.core.placement.PlacementService;
import io.gshare.core.session.IdleSessions;
import io.gshare.core.session.SessionRepository;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The session, metering and idle-reaper activities, on the same domain services as the HTTP layer; the control worker
 * registers them by their {@code @ActivitiesOn}.
 */
@Configuration(proxyBeanMethods = false)
class SessionActivitiesConfig {

  @Bean
  SessionControlActivitiesImpl sessionControlActivities(SessionRepository sessions, BillingWindows billing,
      PlacementService placement, TransactionTemplate transactions) {
    return new SessionControlActivitiesImpl(sessions, billing, placement, transactions);
  }

  @Bean
  MeteringActivitiesImpl meteringActivities(BillingWindows billing) {
    return new MeteringActivitiesImpl(billing, Clock.systemUTC());
  }

  @Bean
  IdleReaperActivitiesImpl idleReaperActivities(IdleSessions idle, IdleReaperProperties idleReaper) {
    return new IdleReaperActivitiesImpl(idle, Clock.systemUTC(), idleReaper.staleAfter());
  }
}
