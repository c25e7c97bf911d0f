package io.gshare.api.session;

import io.gshare.activities.control.IdleReaperActivitiesImpl;
import io.gshare.activities.control.MeteringActivitiesImpl;
import io.gshare.activities.control.SessionControlActivitiesImpl;
import io.gshare.activities.control.SessionRecoveryActivitiesImpl;
import io.gshare.activities.control.SessionStarts;
import io.gshare.api.cluster.ClusterWorkerProperties;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.credit.BillingWindows;
import io.gshare.core.placement.PlacementService;
import io.gshare.core.policy.PolicyRepository;
import io.gshare.core.session.IdleSessions;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.volume.VolumeRepository;
import io.temporal.client.WorkflowClient;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The session, metering, session recovery and idle-reaper activities, on the same domain services as the HTTP layer;
 * the control worker registers them by their {@code @ActivitiesOn}.
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

  /** The session spec and workflow start, shared by the api's create and session recovery. */
  @Bean
  SessionStarts sessionStarts(WorkflowClient client, ClusterRepository clusters, VolumeRepository volumes,
      SessionProperties properties, ClusterWorkerProperties worker) {
    return new SessionStarts(client, clusters, volumes, properties.startSettings(worker.controlPlaneUrl()));
  }

  @Bean
  SessionRecoveryActivitiesImpl sessionRecoveryActivities(SessionRepository sessions, PolicyRepository policies,
      SessionStarts starts, WorkflowClient client) {
    return new SessionRecoveryActivitiesImpl(sessions, policies, starts, client);
  }

  @Bean
  IdleReaperActivitiesImpl idleReaperActivities(IdleSessions idle, IdleReaperProperties idleReaper) {
    return new IdleReaperActivitiesImpl(idle, Clock.systemUTC(), idleReaper.staleAfter());
  }
}
