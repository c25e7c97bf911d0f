package io.gshare.api.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Readiness asks Postgres and Temporal (the chart's readiness probe); liveness asks neither. */
class ReadinessIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;

  @Test
  void readinessReportsPostgresAndTemporalUp() throws Exception {
    ApiResponse ready = getManagement("/actuator/health/readiness");
    assertThat(ready.status()).as(ready.text()).isEqualTo(200);
    JsonNode components = json.readTree(ready.text()).path("components");
    assertThat(components.path("db").path("status").asText()).isEqualTo("UP");
    assertThat(components.path("temporal").path("status").asText()).isEqualTo("UP");
    assertThat(components.path("temporal").path("details").path("namespace").asText()).isEqualTo("default");
    assertThat(get("/healthz", null).status()).isEqualTo(200);
  }
}
