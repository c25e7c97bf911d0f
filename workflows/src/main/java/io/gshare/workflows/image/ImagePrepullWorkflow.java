package io.gshare.workflows.image;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Pulls a session image onto GPU nodes ahead of the first session ({@code image-prepull-<imageId>}): one
 * step per cluster, the clusters a few at a time, each reporting every node as pulled, already present
 * or failed.
 */
@WorkflowInterface
public interface ImagePrepullWorkflow {

  @WorkflowMethod(name = "ImagePrepull")
  OperationProgress prepull(PrepullRequest request);

  @QueryMethod(name = "progress")
  OperationProgress progress();
}
