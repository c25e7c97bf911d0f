package io.gshare.workflows.system;

/** @param worker who answered; null when nobody polled the queue in time */
public record TaskQueueProbeResult(String taskQueue, boolean polled, WorkerIdentity worker) {}
