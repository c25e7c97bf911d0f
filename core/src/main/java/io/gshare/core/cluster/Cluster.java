package io.gshare.core.cluster;

import java.time.Instant;

/** A registered cluster as the API shows it; the kubeconfig is never part of it. */
public record Cluster(
    String id,
    String name,
    String status,
    String statusReason,
    String sessionDomain,
    String ingressNode,
    String checkpointRegistry,
    boolean simulated,
    String apiserverVersion,
    Instant workerLastSeenAt,
    int nodeCount,
    int offlineNodes,
    int gpuCount,
    Instant createdAt,
    Instant updatedAt,
    Instant detachedAt) {}
