package io.gshare.workflows.system;

import java.time.Duration;

/** @param pollerWait how long the ping may wait for a poller */
public record TaskQueueProbeRequest(String taskQueue, Duration pollerWait) {}
