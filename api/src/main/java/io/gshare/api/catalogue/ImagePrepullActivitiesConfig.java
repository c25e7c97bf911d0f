package io.gshare.api.catalogue;

import io.gshare.activities.control.ImagePrepullActivitiesImpl;
import io.gshare.api.temporal.ControlWorker;
import io.gshare.core.operation.OperationRepository;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The image pre-pull's control activity. */
@Configuration(proxyBeanMethods = false)
class ImagePrepullActivitiesConfig {

  @Bean
  ControlWorker.ControlActivities imagePrepullActivities(OperationRepository operations) {
    return new ControlWorker.ControlActivities(List.of(new ImagePrepullActivitiesImpl(operations)));
  }
}
