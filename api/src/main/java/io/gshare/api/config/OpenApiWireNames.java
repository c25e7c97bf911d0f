package io.gshare.api.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.swagger.v3.core.jackson.ModelResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The document's schemas name members as the wire does: springdoc reads the models through the application's own
 * ObjectMapper (snake_case, {@code spring.jackson.property-naming-strategy}) instead of its default one, which would
 * document {@code offeringId} for what the API reads and writes as {@code offering_id}.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiWireNames {

  @Bean
  ModelResolver wireNamedModels(ObjectMapper objectMapper) {
    return new ModelResolver(objectMapper);
  }
}
