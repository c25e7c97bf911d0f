package io.gshare.workflows.cluster;

import java.time.Duration;

/**
 * What a rotation does; the settings come from the api's configuration (workflow code reads none).
 *
 * @param clusterId the one cluster to rotate, or null for every attached cluster
 * @param confirmWait how long to wait for each worker to authenticate with its new token
 * @param confirmPoll how often to look meanwhile
 * @param alertWithin a worker whose current token expires sooner than this, and that did not take a new
 *     one, raises an admin alert
 */
public record TokenRotationRequest(String clusterId, Duration confirmWait, Duration confirmPoll, Duration alertWithin) {}
