package io.gshare.api.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.client.ApiResponse;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.workflows.session.SessionRoute;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** A cluster's session routing: set by PATCH, all or nothing, and what its sessions' specs are given. */
class ClusterRoutingIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  @Autowired ClusterRepository clusters;
  private String admin;
  private String cluster;

  @BeforeEach
  void aConnectedCluster() {
    admin = adminToken();
    cluster = NewTestIds.next("clu");
    jdbc.sql("insert into clusters (id, name, status, session_domain) values (:id, :n, 'connected', :d)")
        .param("id", cluster).param("n", cluster.replace('_', '-')).param("d", cluster.replace('_', '-') + ".example.com")
        .update();
  }

  private ApiResponse patch(String body) {
    return send("PATCH", "/api/v1/clusters/" + cluster, body, admin);
  }

  @Test
  void registeringANameAgainAnswers409WithTheClusterToAttachAgain() throws Exception {
    String kubeconfig = Files.readString(simulatedCluster().writeKubeconfig(
        Files.createTempFile("again", ".kubeconfig")));
    ApiResponse again = post("/api/v1/clusters", json.writeValueAsString(Map.of(
        "name", cluster.replace('_', '-'), "kubeconfig", kubeconfig, "session_domain", "again.example.com")), admin);
    assertThat(again.status()).as(again.text()).isEqualTo(409);
    // hack/attach-cluster.sh reads cluster_id to attach that cluster again on a re-run.
    assertThat(json.readTree(again.text()).path("cluster_id").asText()).isEqualTo(cluster);
    assertThat(json.readTree(again.text()).path("detail").asText()).contains("/api/v1/clusters/" + cluster + "/attach");
  }

  @Test
  void gatewayApiNeedsTheGatewayAndBadInputChangesNothing() throws Exception {
    JsonNode before = json.readTree(get("/api/v1/clusters/" + cluster, admin).text());
    assertThat(before.path("session_routing").asText()).isEqualTo("ingress-nginx");
    assertThat(clusters.sessionRouteOf(cluster)).isEqualTo(SessionRoute.INGRESS_NGINX);

    ApiResponse noGateway = patch("{\"session_routing\":\"gateway-api\"}");
    assertThat(noGateway.status()).isEqualTo(422);
    assertThat(noGateway.text()).contains("session_gateway");
    assertThat(patch("{\"session_routing\":\"traefik\"}").status()).isEqualTo(422);
    assertThat(patch("{\"session_routing\":\"gateway-api\",\"session_gateway\":\"Not A Gateway\"}").status())
        .isEqualTo(422);
    // All or nothing: a bad field elsewhere leaves the routing as it was.
    assertThat(patch("{\"session_routing\":\"gateway-api\",\"session_gateway\":\"envoy-gateway-system/gshare\","
        + "\"prometheus_url\":\"ftp://nope\"}").status()).isEqualTo(422);
    assertThat(clusters.sessionRouteOf(cluster)).isEqualTo(SessionRoute.INGRESS_NGINX);

    ApiResponse ok = patch("{\"session_routing\":\"gateway-api\",\"session_gateway\":\"envoy-gateway-system/gshare\"}");
    assertThat(ok.status()).as(ok.text()).isEqualTo(200);
    assertThat(json.readTree(ok.text()).path("session_gateway").asText()).isEqualTo("envoy-gateway-system/gshare");
    assertThat(clusters.sessionRouteOf(cluster)).isEqualTo(
        new SessionRoute(SessionRoute.Routing.GATEWAY_API, "envoy-gateway-system", "gshare"));

    // Back to ingress-nginx: the Gateway is kept for later, the sessions route by Ingress again.
    assertThat(patch("{\"session_routing\":\"ingress-nginx\"}").status()).isEqualTo(200);
    assertThat(clusters.sessionRouteOf(cluster)).isEqualTo(SessionRoute.INGRESS_NGINX);
  }
}
