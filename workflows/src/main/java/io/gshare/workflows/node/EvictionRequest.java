package io.gshare.workflows.node;

/** Evict every pod on {@code hostname} but DaemonSet and mirror pods, retrying refusals until {@code deadlineEpochMillis}. */
public record EvictionRequest(String hostname, long deadlineEpochMillis) {}
