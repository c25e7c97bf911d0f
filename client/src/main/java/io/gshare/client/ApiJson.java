package io.gshare.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The API's JSON: snake_case members, ISO-8601 instants, absent rather than null members in requests; members a
 * record does not name are ignored, so the server may add members without breaking a client.
 */
public final class ApiJson {

  public static final ObjectMapper MAPPER = configure(new ObjectMapper());

  private ApiJson() {}

  /** {@code mapper} set up as the API's JSON (the CLI uses it for its YAML output too). */
  public static ObjectMapper configure(ObjectMapper mapper) {
    return mapper.registerModule(new JavaTimeModule())
        .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .setSerializationInclusion(JsonInclude.Include.NON_NULL)
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }
}
