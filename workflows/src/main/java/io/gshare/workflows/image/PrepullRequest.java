package io.gshare.workflows.image;

import java.util.List;

/**
 * An image pre-pull as the API accepted it: the image, its reference when the pull was asked for, and
 * the nodes of each cluster to pull it onto.
 */
public record PrepullRequest(String imageId, String reference, List<ClusterNodes> clusters) {

  public PrepullRequest {
    clusters = clusters == null ? List.of() : List.copyOf(clusters);
  }

  /** The nodes of one cluster, by their names in Kubernetes. */
  public record ClusterNodes(String clusterId, List<String> hostnames) {

    public ClusterNodes {
      hostnames = hostnames == null ? List.of() : List.copyOf(hostnames);
    }
  }
}
