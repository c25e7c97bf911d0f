package io.gshare.contract.internal;

/** The control plane's answer to a status, usage or volume report: how many rows it touched. */
@WireJson
public record Accepted(int accepted) {}
