package io.gshare.api.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.client.ApiResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/** Outside the dev runtime a kubeconfig pointing at the control plane's own loopback is refused. */
@TestPropertySource(properties = "gshare.dev.allow-loopback-kubeconfig=false")
class LoopbackKubeconfigIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;

  @Test
  void aLoopbackServerIsA422WithTheGuidesAdviceAndNothingIsWritten() throws Exception {
    String admin = adminToken();
    int before = jdbc.sql("select count(*) from clusters").query(Integer.class).single();
    for (String server : new String[] {"https://127.0.0.1:6443", "https://localhost:6443", "https://[::1]:6443",
        "https://127.9.9.9:6443"}) {
      String kubeconfig = """
          apiVersion: v1
          kind: Config
          clusters: [{name: c, cluster: {server: "%s"}}]
          contexts: [{name: x, context: {cluster: c, user: u}}]
          current-context: x
          users: [{name: u, user: {token: t}}]
          """.formatted(server);
      ApiResponse response = post("/api/v1/clusters",
          json.writeValueAsString(Map.of("name", "lab-loop", "kubeconfig", kubeconfig)), admin);
      assertThat(response.status()).as(server).isEqualTo(422);
      assertThat(json.readTree(response.text()).get("detail").asText()).contains("reachable from the control plane");
    }
    assertThat(jdbc.sql("select count(*) from clusters").query(Integer.class).single()).isEqualTo(before);
  }
}
