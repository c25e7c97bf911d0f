package io.gshare.workflows.volume;

/**
 * One claim of a volume to delete.
 *
 * @param clusterAttached false when the cluster was detached (or is detaching): its claim is reported,
 *     not waited on, since no worker will act there any more
 */
public record ClaimTarget(String clusterId, String pvcName, boolean clusterAttached) {}
