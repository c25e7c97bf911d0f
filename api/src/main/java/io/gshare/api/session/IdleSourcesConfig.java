package io.gshare.api.session;

import io.gshare.core.cluster.IdleSourceDefaults;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Hands the domain the idle reaper's sources for clusters that set none of their own. */
@Configuration(proxyBeanMethods = false)
class IdleSourcesConfig {

  @Bean
  IdleSourceDefaults idleSourceDefaults(IdleReaperProperties idle) {
    return idle.sourceDefaults();
  }
}
