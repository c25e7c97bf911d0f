package io.gshare.workflows.session;

/**
 * One checkpoint archive to build into an image and push, on the node that holds it.
 *
 * @param archive the kubelet's archive path on {@code hostname}
 */
public record CheckpointImage(String sessionId, String hostname, String archive, String imageReference, String builderImage) {}
