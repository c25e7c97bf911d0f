package io.gshare.workflows.node;

import io.gshare.workflows.session.DrainMode;

/**
 * A node drain as the API accepted it.
 *
 * @param deadlineSeconds how long the whole drain may take; sessions not settled and pods not evicted
 *     by then (a PodDisruptionBudget that keeps refusing) are reported, and the node stays cordoned
 * @param reason the admin's words, shown to the users whose sessions are moved
 */
public record DrainRequest(String nodeId, String clusterId, String hostname, DrainMode mode, long deadlineSeconds,
    String reason) {}
