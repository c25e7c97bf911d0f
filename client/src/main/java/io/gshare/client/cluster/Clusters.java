package io.gshare.client.cluster;

import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import java.util.Map;

/** {@code /api/v1/clusters}: GPU clusters, their attach, connection test and token rotation. */
public final class Clusters {

  private final GshareClient api;

  public Clusters(GshareClient api) {
    this.api = api;
  }

  public Cluster.ClusterList list() {
    return api.get(ApiPaths.CLUSTERS, Cluster.ClusterList.class);
  }

  public Cluster get(String id) {
    return api.get(ApiPaths.cluster(id), Cluster.class);
  }

  /** Registers a cluster and starts its attach workflow; follow the answer's operation. */
  public Cluster.Accepted register(Cluster.NewCluster cluster) {
    return api.post(ApiPaths.CLUSTERS, cluster, Cluster.Accepted.class);
  }

  /** Runs the attach again (after a failed one); follow the answer's operation. */
  public Cluster.Accepted attach(String id) {
    return api.post(ApiPaths.cluster(id) + "/attach", Map.of(), Cluster.Accepted.class);
  }

  public Cluster.ConnectionTest connectionTest(String id) {
    return api.post(ApiPaths.cluster(id) + "/connection-test", Map.of(), Cluster.ConnectionTest.class);
  }

  public Cluster.Accepted rotateToken(String id) {
    return api.post(ApiPaths.cluster(id) + "/rotate-token", Map.of(), Cluster.Accepted.class);
  }

  /** Changes the members {@code change} names (e.g. {@code session_domain}). */
  public Cluster update(String id, Map<String, ?> change) {
    return GshareClient.convert(api.patch(ApiPaths.cluster(id), change), Cluster.class);
  }
}
