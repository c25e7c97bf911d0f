package io.gshare.api.node;

import io.gshare.core.node.Liveness;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Hands the domain the configured liveness window. */
@Configuration(proxyBeanMethods = false)
class NodeLivenessConfig {

  @Bean
  Liveness liveness(NodeProperties nodes) {
    return new Liveness(nodes.staleAfter());
  }
}
