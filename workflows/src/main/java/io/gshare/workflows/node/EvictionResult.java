package io.gshare.workflows.node;

import java.util.List;

/**
 * What an eviction pass left.
 *
 * @param evicted {@code namespace/name} of the pods evicted (and gone)
 * @param daemonSetPods how many DaemonSet pods stay on the node, as {@code kubectl drain --ignore-daemonsets} leaves them
 * @param blocked {@code namespace/name: why} of the pods still there at the deadline (a PodDisruptionBudget
 *     refusing, or a pod slow to go); empty when the node is drained
 */
public record EvictionResult(List<String> evicted, int daemonSetPods, List<String> blocked) {

  public EvictionResult {
    evicted = evicted == null ? List.of() : List.copyOf(evicted);
    blocked = blocked == null ? List.of() : List.copyOf(blocked);
  }
}
