package io.gshare.workflows.cluster;

import io.gshare.workflows.session.SessionReroute;

/** Which cluster's live sessions move, and where to: its session domain and routing as just changed. */
public record ClusterRerouteRequest(String clusterId, SessionReroute change) {}
