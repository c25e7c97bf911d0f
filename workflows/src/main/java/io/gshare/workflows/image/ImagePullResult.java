package io.gshare.workflows.image;

import java.util.List;

/** One {@link NodePull} per node asked for, in the order asked. */
public record ImagePullResult(List<NodePull> nodes) {

  public ImagePullResult {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }
}
