package io.gshare.workflows.session;


/** The pod behind a session, as its cluster reports it; {@code phase} is null before the pod has a status. */
public record PodState(PodPhase phase, String podIp, String hostname) {}
