package io.gshare.workflows.system;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The control plane's signing keys. Runs on gshare-control, in a process that holds the key files. */
@ActivityInterface
public interface SigningKeyActivities {

  /** A new internal signing key; the previous one keeps verifying until its tokens expire. Returns the new kid. */
  @ActivityMethod(name = "RotateInternalSigningKey")
  String rotateInternalSigningKey();
}
