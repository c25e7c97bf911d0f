package io.gshare.activities.control;

import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.policy.Policy;
import io.gshare.core.volume.VolumeRepository;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.CheckpointTarget;
import io.gshare.workflows.session.MaxRuntimeAction;
import io.gshare.workflows.session.SessionSpec;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionUrlForm;
import io.gshare.workflows.session.SessionVolume;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;

/**
 * What a session's workflow keeps for its whole life and the start of that workflow, built here alone: by the api's
 * create for a new session and by session recovery ({@link SessionRecoveryActivitiesImpl}) for one it restarts from
 * its row. It lives in this module, not in the api, so that recovery can be a control activity like the others.
 */
public class SessionStarts {

  /**
   * The control plane's settings every session spec carries, resolved by the api from {@code gshare.sessions.*}.
   *
   * @param authUrl what session Ingresses' auth-url calls
   * @param signInUrl where session routers send a browser without a cookie on the session domain
   * @param urlForm how session URLs are spelled around their cluster's domain
   * @param checkpointBuilderImage the buildah image lossless pauses build with; null or empty: every pause cold
   */
  public record Settings(String authUrl, String signInUrl, SessionUrlForm urlForm, String checkpointBuilderImage) {}

  private final WorkflowClient client;
  private final ClusterRepository clusters;
  private final VolumeRepository volumes;
  private final Settings settings;

  public SessionStarts(WorkflowClient client, ClusterRepository clusters, VolumeRepository volumes, Settings settings) {
    this.client = client;
    this.clusters = clusters;
    this.volumes = volumes;
    this.settings = settings;
  }

  public Settings settings() {
    return settings;
  }

  /**
   * Where the cluster's lossless pauses push their images: its {@code checkpoint_registry} and the configured builder
   * image; null (every pause cold) when either is missing.
   */
  CheckpointTarget checkpointTarget(String checkpointRegistry) {
    String builder = settings.checkpointBuilderImage();
    return builder == null || builder.isBlank() || checkpointRegistry == null ? null
        : new CheckpointTarget(checkpointRegistry, builder);
  }

  /** The spec of a session's workflow: for a new session and for one recovery restarts from its row. */
  public SessionSpec specOf(String sessionId, String userId, String clusterId, String imageReference, int port,
      String path, String sessionDomain, Policy policy, SessionVolume volume, String checkpointRegistry) {
    return new SessionSpec(sessionId, userId, clusterId, imageReference, port, path, sessionDomain, settings.authUrl(),
        policy.maxRuntimeMinutes() == null ? null : Duration.ofMinutes(policy.maxRuntimeMinutes()),
        MaxRuntimeAction.fromWire(policy.maxRuntimeAction()), volume, checkpointTarget(checkpointRegistry),
        clusters.sessionRouteOf(clusterId), settings.signInUrl(),
        // Production's form stays out of the spec: its URL is spelled as before the form existed.
        settings.urlForm().equals(SessionUrlForm.HTTPS) ? null : settings.urlForm());
  }

  /**
   * A volume as its session on {@code clusterId} mounts it: claim name from its id, size from the volume, class from
   * its pool (or the cluster's volume StorageClass).
   */
  public SessionVolume volumeOf(String volumeId, String clusterId) {
    VolumeRepository.Mount mount = volumes.mountOf(volumeId, clusterId);
    return new SessionVolume(volumeId, SessionVolume.claimNameOf(volumeId), mount.storageClass(), mount.sizeGb(),
        SessionVolume.MOUNT_PATH);
  }

  /** Starts {@code session-<id>}, or finds the run already under that id; answers the run. */
  public WorkflowExecution start(SessionStart start) {
    SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.session(start.spec().sessionId()))
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        // Eager start: the server hands the first workflow task back in the start response to this
        // process's control worker (when it runs here), saving a poll round trip before the pod is made.
        .setDisableEagerExecution(false)
        .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
            .set(SearchAttributes.SESSION_ID, start.spec().sessionId())
            .set(SearchAttributes.USER_ID, start.spec().userId())
            .set(SearchAttributes.CLUSTER_ID, start.spec().clusterId()).build())
        .build());
    return WorkflowClient.start(workflow::run, start);
  }
}
