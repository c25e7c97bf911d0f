package io.gshare.contract.internal;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/**
 * The pod behind one session, as the cluster sees it.
 *
 * @param phase the pod's phase, or {@code Terminating} once it is being deleted
 * @param message what the cluster says about a pod that is not simply running: eviction, OOM kill, exit code
 */
@WireJson
public record SessionStatus(@NotBlank String sessionId, @Size(max = 32) String phase, @Size(max = 64) String podIp,
    @Size(max = 253) String node, @Size(max = 1000) String message) {}
