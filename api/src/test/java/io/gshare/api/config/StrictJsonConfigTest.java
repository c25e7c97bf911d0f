package io.gshare.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.springframework.http.converter.json.Jackson2ObjectMapperBuilder;

class StrictJsonConfigTest {

  record Body(String name, Integer count, BigDecimal amount, Boolean active, int size, Kind kind) {}

  enum Kind { ONE, TWO }

  private final ObjectMapper json = mapper();

  private static ObjectMapper mapper() {
    Jackson2ObjectMapperBuilder builder = new Jackson2ObjectMapperBuilder();
    new StrictJsonConfig().strictJson().customize(builder);
    return builder.build();
  }

  @Test
  void aWellTypedBodyReads() throws Exception {
    Body body = json.readValue("{\"name\":\"a\",\"count\":2,\"amount\":1.5,\"active\":true,\"size\":3,\"kind\":\"TWO\"}",
        Body.class);
    assertThat(body).isEqualTo(new Body("a", 2, new BigDecimal("1.5"), true, 3, Kind.TWO));
    assertThat(json.readValue("{}", Body.class).name()).isNull();
  }

  @Test
  void eachValueOfAnotherTypeIsRefused() {
    for (String wrong : new String[] {"{\"name\":5}", "{\"name\":true}", "{\"name\":1.5}", "{\"count\":\"5\"}",
        "{\"count\":1.5}", "{\"amount\":\"1.5\"}", "{\"active\":\"true\"}", "{\"active\":1}",
        "{\"kind\":1}", "{\"name\":\"a\"} trailing"}) {
      assertThatThrownBy(() -> json.readValue(wrong, Body.class)).as(wrong).isInstanceOf(JsonProcessingException.class);
    }
  }
}
