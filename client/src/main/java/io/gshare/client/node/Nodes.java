package io.gshare.client.node;

import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;

/** {@code /api/v1/nodes} and {@code /api/v1/gpus}: nodes, their GPUs, drains and cordons. */
public final class Nodes {

  private final GshareClient api;

  public Nodes(GshareClient api) {
    this.api = api;
  }

  public Node.NodeList list() {
    return api.get(ApiPaths.NODES, Node.NodeList.class);
  }

  public Node.GpuList gpus() {
    return api.get(ApiPaths.GPUS, Node.GpuList.class);
  }

  public Node.Accepted drain(String nodeId, Node.DrainBody drain) {
    return api.post(ApiPaths.node(nodeId) + "/drain", drain, Node.Accepted.class);
  }

  public Node.Accepted uncordon(String nodeId) {
    return api.post(ApiPaths.node(nodeId) + "/uncordon", null, Node.Accepted.class);
  }
}
