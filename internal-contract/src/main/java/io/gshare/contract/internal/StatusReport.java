package io.gshare.contract.internal;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * The pods behind sessions of a cluster, sent to {@link InternalPaths#SESSIONS_STATUS}.
 *
 * @param complete every session pod of the cluster is listed: a running session missing from it has
 *     lost its pod (its workflow is told, and checks with the cluster before it acts); absent means false
 */
@WireJson
public record StatusReport(@NotNull @Size(max = 10_000) @Valid List<SessionStatus> sessions, boolean complete) {}
