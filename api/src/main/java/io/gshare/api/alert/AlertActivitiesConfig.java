package io.gshare.api.alert;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.activities.control.AlertDeliveryActivitiesImpl;
import io.gshare.activities.control.AlertWebhook;
import io.gshare.core.alert.Alerts;
import io.gshare.core.alert.EndedAlertConditions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Alert delivery's control activities ({@code gshare.alerts.*}), on the same repositories as the HTTP layer; the
 * control worker registers them by their {@code @ActivitiesOn}, and the Schedule {@code alert-delivery}
 * ({@link AlertDeliverySchedule}) runs them.
 */
@Configuration(proxyBeanMethods = false)
class AlertActivitiesConfig {

  @Bean
  AlertDeliveryActivitiesImpl alertDeliveryActivities(Alerts alerts, EndedAlertConditions ended,
      AlertProperties properties, TransactionTemplate transactions, ObjectMapper json) {
    AlertWebhook webhook = properties.webhook() == null ? null
        : new AlertWebhook(properties.webhook(), properties.timeout(), properties.externalUrl(), json);
    return new AlertDeliveryActivitiesImpl(alerts, ended, webhook, properties::retryAfter, transactions);
  }
}
