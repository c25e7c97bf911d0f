package io.gshare.activities.control;

import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.system.SigningKeyActivities;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Rotates the internal signing key through the control plane's key ring (the system endpoint's rotation). */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class SigningKeyActivitiesImpl implements SigningKeyActivities {

  private static final Logger log = LoggerFactory.getLogger(SigningKeyActivitiesImpl.class);

  private final Supplier<String> rotateInternal;

  /** @param rotateInternal rotates the internal key ring and returns the new kid */
  public SigningKeyActivitiesImpl(Supplier<String> rotateInternal) {
    this.rotateInternal = rotateInternal;
  }

  @Override
  public String rotateInternalSigningKey() {
    String kid = rotateInternal.get();
    log.info("rotated the internal signing key; new key {}", kid);
    return kid;
  }
}
