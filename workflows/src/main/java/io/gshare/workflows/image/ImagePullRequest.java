package io.gshare.workflows.image;

import java.util.List;

/** Pull {@code reference} onto {@code hostnames} of the worker's own cluster; {@code imageId} names the pods. */
public record ImagePullRequest(String imageId, String reference, List<String> hostnames) {

  public ImagePullRequest {
    hostnames = hostnames == null ? List.of() : List.copyOf(hostnames);
  }
}
