package io.gshare.core.node;

import io.gshare.workflows.common.WireEnum;

/**
 * A node's liveness ({@code nodes.liveness}, the API's {@code liveness}): what its cluster's last inventory report
 * said, or offline once the node left that report or the reports stopped ({@link NodeQueries#EFFECTIVE_LIVENESS}).
 */
public enum NodeLiveness implements WireEnum {
  /** Reported, its kubelet Ready. */
  READY,
  /** Reported, its kubelet not Ready. */
  NOT_READY,
  /** No longer reported: only an offline node can be deleted. */
  OFFLINE;

  /** What an inventory report's node says of itself. */
  public static NodeLiveness reported(boolean ready) {
    return ready ? READY : NOT_READY;
  }

  /** @throws IllegalArgumentException for a value that is not a liveness */
  public static NodeLiveness fromWire(String value) {
    return WireEnum.require(NodeLiveness.class, value, "node liveness");
  }
}
