package io.gshare.api.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Request bodies are read as the OpenAPI document types them, and nothing else: Jackson's lenient defaults would
 * take {@code "5"} for a number, {@code 5} or {@code true} for a string, {@code 1.5} for an integer (as 1), an
 * enum's index for its name and a document followed by more text, so a body the document calls invalid could change something. Each is a 400 now.
 * The fault suite's schemathesis run (scenario 18) found them.
 */
@Configuration(proxyBeanMethods = false)
class StrictJsonConfig {

  @Bean
  Jackson2ObjectMapperBuilderCustomizer strictJson() {
    return builder -> builder
        .featuresToDisable(MapperFeature.ALLOW_COERCION_OF_SCALARS, DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .featuresToEnable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
        .postConfigurer(mapper -> mapper.coercionConfigFor(LogicalType.Textual)
            .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
  }
}
