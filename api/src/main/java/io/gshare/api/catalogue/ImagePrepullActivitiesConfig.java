package io.gshare.api.catalogue;

import io.gshare.activities.control.ImagePrepullActivitiesImpl;
import io.gshare.core.operation.OperationRepository;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The image pre-pull's control activity. */
@Configuration(proxyBeanMethods = false)
class ImagePrepullActivitiesConfig {

  @Bean
  ImagePrepullActivitiesImpl imagePrepullActivities(OperationRepository operations) {
    return new ImagePrepullActivitiesImpl(operations);
  }
}
