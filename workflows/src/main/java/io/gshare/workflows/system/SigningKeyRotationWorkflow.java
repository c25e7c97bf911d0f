package io.gshare.workflows.system;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Rotates the internal signing key ({@code signing-key-rotation}, started by the Schedule of the same
 * name): the same rotation as {@code POST /api/v1/system/keys/internal/rotate}. The previous key stays
 * in the JWKS until every token it signed has expired.
 */
@WorkflowInterface
public interface SigningKeyRotationWorkflow {

  /** The new key's kid. */
  @WorkflowMethod(name = "SigningKeyRotation")
  String rotate();
}
