package io.gshare.api.volume;

import io.gshare.core.volume.DefaultVolumeStorageClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Hands the domain the StorageClass a volume's claim takes when neither its pool nor its cluster names one. */
@Configuration(proxyBeanMethods = false)
class VolumeDefaultsConfig {

  @Bean
  DefaultVolumeStorageClass defaultVolumeStorageClass(VolumeProperties volumes) {
    return new DefaultVolumeStorageClass(volumes.defaultStorageClass());
  }
}
