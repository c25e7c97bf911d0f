package io.gshare.client.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.gshare.client.operation.OperationRef;
import java.time.Instant;
import java.util.List;

/** A node as {@code /api/v1/nodes} describes it, with its GPUs. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Node(String id, String clusterId, String hostname, String liveness, String gpuMode, String poolId,
    Boolean schedulable, String drainState, Instant lastSeenAt, Instant removedAt, List<Gpu> gpus) {

  public Node {
    gpus = gpus == null ? List.of() : List.copyOf(gpus);
  }

  /** A GPU of a node, as the node lists it. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Gpu(String uuid, Integer index, String model, Long memoryMib, Integer splitCount, Boolean healthy,
      Boolean cordoned) {}

  /** A GPU and where it is ({@code GET /api/v1/gpus}). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record GpuLocation(String uuid, Integer index, String model, Long memoryMib, Integer splitCount,
      Boolean healthy, Boolean cordoned, String nodeId, String hostname, String clusterId) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NodeList(List<Node> items) {
    public NodeList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record GpuList(List<GpuLocation> items) {
    public GpuList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  /** {@code POST /api/v1/nodes/{id}/drain}'s body. */
  public record DrainBody(String mode, Long deadlineSeconds, String reason) {}

  /** A drain's or uncordon's answer: the node and the operation to follow. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Accepted(Target node, OperationRef operation) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Target(String nodeId, String clusterId, String hostname, String liveness, String drainState) {}
}
