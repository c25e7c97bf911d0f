package io.gshare.workflows.node;

/** A node as workflows address it: its row, its cluster's task queue, its name in Kubernetes. */
public record NodeTarget(String nodeId, String clusterId, String hostname) {}
