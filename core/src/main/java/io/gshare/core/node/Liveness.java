package io.gshare.core.node;

import java.time.Duration;

/** @param staleAfter a node whose worker has not reported it for this long is offline */
public record Liveness(Duration staleAfter) {}
