package io.gshare.workflows.session;

import io.gshare.workflows.kube.KubeNames;

/**
 * Where a lossless pause turns its checkpoint archive into an image: the cluster's registry repository
 * and the image of the builder that runs on the checkpointed node. A checkpoint left as an archive
 * could only be restored on its own node; as an image any node with the same GPU model can run it.
 *
 * @param repository e.g. {@code 10.10.0.191:5000/gshare-checkpoints} (the cluster's {@code checkpoint_registry})
 * @param builderImage a buildah image the nodes can pull (the api's {@code gshare.session.checkpoint-builder-image})
 */
public record CheckpointTarget(String repository, String builderImage) {

  /** {@code <repository>/gshare-ses-k2j8:ckpt-<millis>}: one tag per pause, so a retry pushes the same one. */
  public String imageFor(String sessionId, long pausedAtMillis) {
    return repository + "/" + KubeNames.of("gshare", sessionId) + ":ckpt-" + pausedAtMillis;
  }
}
