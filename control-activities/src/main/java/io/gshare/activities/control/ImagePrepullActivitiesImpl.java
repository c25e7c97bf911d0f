package io.gshare.activities.control;

import io.gshare.core.operation.OperationRepository;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.image.ImagePrepullActivities;

/** Records where an image pre-pull ended. */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class ImagePrepullActivitiesImpl implements ImagePrepullActivities {

  private final OperationRepository operations;

  public ImagePrepullActivitiesImpl(OperationRepository operations) {
    this.operations = operations;
  }

  @Override
  public void recordOperation(OperationProgress progress) {
    operations.record(progress);
  }
}
