package io.gshare.workflows.session;

/** The pod behind a session, as its cluster reports it. */
public record PodState(String phase, String podIp, String hostname) {}
