package io.gshare.workflows.session;

/**
 * One checkpoint archive to build into an image and push, on the node that holds it.
 *
 * @param archive the kubelet's archive path on {@code hostname}
 * @param container the checkpointed container's name (the image's checkpoint annotation names it)
 */
public record CheckpointImage(String sessionId, String hostname, String archive, String container, String imageReference,
    String builderImage) {}
