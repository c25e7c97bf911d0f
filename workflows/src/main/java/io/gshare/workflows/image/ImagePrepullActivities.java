package io.gshare.workflows.image;

import io.gshare.workflows.common.OperationProgress;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The control plane's side of an image pre-pull. Runs on gshare-control. */
@ActivityInterface
public interface ImagePrepullActivities {

  /** Stores where the operation ended, for after its execution is gone. */
  @ActivityMethod(name = "RecordImagePrepull")
  void recordOperation(OperationProgress progress);
}
