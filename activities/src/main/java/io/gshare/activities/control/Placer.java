package io.gshare.activities.control;

import io.gshare.workflows.session.GpuPlacement;

/**
 * Re-admits and places a session for a resume (the api's placement service). Refusals are thrown as
 * non-retryable failures typed with their problem code.
 */
@FunctionalInterface
public interface Placer {

  GpuPlacement place(String sessionId);
}
