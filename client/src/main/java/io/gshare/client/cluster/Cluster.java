package io.gshare.client.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.gshare.client.operation.OperationRef;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A cluster as {@code /api/v1/clusters} describes it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Cluster(String id, String name, String status, String statusReason, String sessionDomain,
    Boolean simulated, String apiserverVersion, Instant workerLastSeenAt, Integer nodeCount, Integer offlineNodes,
    Integer gpuCount, Instant createdAt, Instant detachedAt) {

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ClusterList(List<Cluster> items) {
    public ClusterList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  /** {@code POST /api/v1/clusters}'s body: the kubeconfig the attach workflow deploys the worker with. */
  public record NewCluster(String name, String kubeconfig, String sessionDomain, String ingressNode,
      String checkpointRegistry, Map<String, Object> storage) {}

  /** What an accepted attach, rotation or detach answers: the cluster and the operation to follow. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Accepted(Cluster cluster, OperationRef operation) {}

  /** {@code POST /api/v1/clusters/{id}/connection-test}'s answer. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ConnectionTest(String status, Map<String, Boolean> checks, String reason, String apiserverVersion,
      Boolean simulated, Integer gpuCount) {
    public ConnectionTest {
      checks = checks == null ? Map.of() : Map.copyOf(checks);
    }
  }
}
