package io.gshare.workflows.cluster;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Asks a cluster's worker to describe its cluster and judges whether the cluster can host gShare
 * sessions. It proves the whole path api → Temporal → cluster-worker → apiserver, and is the
 * engine of the connection test.
 */
@WorkflowInterface
public interface ClusterProbeWorkflow {

  @WorkflowMethod(name = "ClusterProbe")
  ClusterProbeResult probe(ClusterProbeRequest request);
}
