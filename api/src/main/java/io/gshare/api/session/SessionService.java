package io.gshare.api.session;

import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.placement.PlacementService;
import io.gshare.core.policy.Policy;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.support.NewIds;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.CheckpointTarget;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.MaxRuntimeAction;
import io.gshare.workflows.session.SessionSnapshot;
import io.gshare.workflows.session.SessionSpec;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionVolume;
import io.gshare.workflows.session.SessionCommand;
import io.gshare.workflows.session.SessionState;
import io.gshare.workflows.session.SessionView;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateException;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates sessions and hands their commands to their workflows. Create admits and places in one
 * transaction with the session row, then starts {@code session-<id>}; pause, resume and terminate
 * are workflow updates; the API never calls a cluster itself.
 */
@Service
public class SessionService {

  private final JdbcClient jdbc;
  private final PlacementService placement;
  private final OfferingRepository offerings;
  private final WorkflowClient client;
  private final Access access;
  private final TransactionTemplate transactions;
  private final String authUrl;

  SessionService(JdbcClient jdbc, PlacementService placement, OfferingRepository offerings,
      WorkflowClient client, Access access, TransactionTemplate transactions,
      @Value("${gshare.sessions.auth-url:}") String authUrl,
      @Value("${gshare.cluster-worker.control-plane-url:}") String controlPlaneUrl,
      @Value("${gshare.sessions.checkpoint-builder-image:}") String checkpointBuilderImage) {
    this.jdbc = jdbc;
    this.placement = placement;
    this.offerings = offerings;
    this.client = client;
    this.access = access;
    this.transactions = transactions;
    this.authUrl = authUrl;
    this.controlPlaneUrl = controlPlaneUrl;
    this.checkpointBuilderImage = checkpointBuilderImage;
  }

  private final String controlPlaneUrl;
  private final String checkpointBuilderImage;

  /**
   * Where the cluster's lossless pauses push their images: its {@code checkpoint_registry} and the
   * configured builder image; null (every pause cold) when either is missing.
   */
  CheckpointTarget checkpointTarget(String checkpointRegistry) {
    return checkpointBuilderImage == null || checkpointBuilderImage.isBlank() || checkpointRegistry == null ? null
        : new CheckpointTarget(checkpointRegistry, checkpointBuilderImage);
  }

  /**
   * What a session's workflow keeps for its whole life, built here alone: for a new session and for
   * one recovery restarts from its row.
   */
  SessionSpec specOf(String sessionId, String userId, String clusterId, String imageReference, int port, String path,
      String sessionDomain, Policy policy, SessionVolume volume, String checkpointRegistry) {
    return new SessionSpec(sessionId, userId, clusterId, imageReference, port, path, sessionDomain, authUrl(),
        policy.maxRuntimeMinutes() == null ? null : Duration.ofMinutes(policy.maxRuntimeMinutes()),
        MaxRuntimeAction.fromWire(policy.maxRuntimeAction()), volume, checkpointTarget(checkpointRegistry));
  }

  /** Where ingress-nginx asks who may open a session: configured, or the control plane's own /internal. */
  String authUrl() {
    if (authUrl != null && !authUrl.isBlank()) {
      return authUrl;
    }
    return (controlPlaneUrl == null || controlPlaneUrl.isBlank() ? "http://127.0.0.1:8080" : controlPlaneUrl.replaceAll("/$", ""))
        + "/internal/connect/verify";
  }

  record Image(String reference, int port, String path) {}

  /** Admits, places and starts a session; answers with its id. */
  public String create(Caller.User caller, String offeringId, String imageId, String volumeId, String name) {
    Image image = jdbc.sql("select reference, port, path from images where id = :id and active").param("id", imageId)
        .query((rs, n) -> new Image(rs.getString(1), rs.getInt(2), rs.getString(3))).optional()
        .orElseThrow(() -> new GshareException(ProblemCode.VALIDATION_FAILED, "no active image '" + imageId + "'"));
    SessionVolume volume = null;
    if (volumeId != null) {
      String owner = jdbc.sql("select owner_id from volumes where id = :v and deleted_at is null").param("v", volumeId)
          .query(String.class).optional().orElseThrow(() -> GshareException.notFound("volume", volumeId));
      access.requireOwnerOrAdmin(caller, "volume", volumeId, owner);
      refuseWhenVolumeInUse(volumeId);
      volume = volumeOf(volumeId);
    }
    OfferingRepository.Offering offering = offerings.findById(offeringId).filter(OfferingRepository.Offering::active)
        .orElseThrow(() -> new GshareException(ProblemCode.UNSERVICEABLE, "no active offering '" + offeringId + "'"));
    String sessionId = NewIds.next("ses");
    Placed placed;
    try {
      placed = transactions.execute(tx -> place(caller, sessionId, offering, imageId, image, volumeId, name));
    } catch (DuplicateKeyException raced) {
      // Another create took the volume between the check above and this insert.
      refuseWhenVolumeInUse(volumeId);
      throw raced;
    }
    Policy policy = placed.decision().policy();
    GpuPlacement where = placed.decision().placement();
    SessionStart start = new SessionStart(
        specOf(sessionId, caller.userId(), where.clusterId(), image.reference(), image.port(), image.path(), placed.domain(),
            policy, volume, placed.checkpointRegistry()),
        SessionSnapshot.creating(where));
    try {
      startWorkflow(start);
    } catch (RuntimeException e) {
      // Never strand held GPUs behind a session no workflow looks after: both or neither.
      transactions.executeWithoutResult(tx -> {
        placement.release(sessionId);
        jdbc.sql("update sessions set state = 'failed', state_reason = :r, ended_at = now() where id = :id")
            .param("id", sessionId).param("r", "could not start its workflow: " + e.getMessage()).update();
      });
      throw e;
    }
    return sessionId;
  }

  private record Placed(PlacementService.Decision decision, String domain, String checkpointRegistry) {}

  /** The session row, its GPUs and (with a volume) the claim its cluster will make: one transaction. */
  private Placed place(Caller.User caller, String sessionId, OfferingRepository.Offering offering, String imageId,
      Image image, String volumeId, String name) {
    jdbc.sql("""
        insert into sessions (id, user_id, name, state, offering_id, gpu_model, mode, price_per_hour, image_id,
                              image_reference, volume_id, workflow_id)
        values (:id, :u, :name, 'pending', :o, :model, :mode, :price, :img, :ref, :vol, :wf)
        """)
        .param("id", sessionId).param("u", caller.userId()).param("name", name).param("o", offering.id())
        .param("model", offering.gpuModel()).param("mode", offering.mode()).param("price", offering.pricePerHour())
        .param("img", imageId).param("ref", image.reference()).param("vol", volumeId)
        .param("wf", WorkflowIds.session(sessionId))
        .update();
    PlacementService.Decision decision = placement.allocate(
        new PlacementService.Request(sessionId, caller.userId(), offering.id()));
    GpuPlacement where = decision.placement();
    record Cluster(String domain, String name, String checkpointRegistry) {}
    Cluster cluster = jdbc.sql("select session_domain, name, checkpoint_registry from clusters where id = :c")
        .param("c", where.clusterId())
        .query((rs, n) -> new Cluster(rs.getString(1), rs.getString(2), rs.getString(3))).single();
    jdbc.sql("""
        update sessions set state = 'creating', cluster_id = :c, cluster_name = :cn, node_id = :n, node_hostname = :h
         where id = :id
        """)
        .param("id", sessionId).param("c", where.clusterId()).param("cn", cluster.name()).param("n", where.nodeId())
        .param("h", where.hostname()).update();
    if (volumeId != null) {
      // Recorded before the cluster claims it, so every claim of the volume can be found (and reclaimed) later.
      jdbc.sql("""
          insert into volume_claims (volume_id, cluster_id, pvc_name) values (:v, :c, :pvc)
          on conflict (volume_id, cluster_id) do nothing
          """).param("v", volumeId).param("c", where.clusterId()).param("pvc", SessionVolume.claimNameOf(volumeId))
          .update();
    }
    return new Placed(decision, cluster.domain(), cluster.checkpointRegistry());
  }

  private void refuseWhenVolumeInUse(String volumeId) {
    jdbc.sql("select id, state from sessions where volume_id = :v and state not in ('terminated', 'failed') limit 1")
        .param("v", volumeId)
        .query((rs, n) -> new GshareException(ProblemCode.VOLUME_IN_USE, "volume " + volumeId + " is used by session "
            + rs.getString(1) + " (" + rs.getString(2) + "); a volume serves one session at a time, so end that one first",
            Map.of("session_id", rs.getString(1))))
        .optional()
        .ifPresent(refusal -> {
          throw refusal;
        });
  }

  /** A volume as its session mounts it: claim name from its id, size and class from the volume and its pool. */
  SessionVolume volumeOf(String volumeId) {
    return jdbc.sql("""
        select v.size_gb, p.storage_class from volumes v left join storage_pools p on p.id = v.storage_pool_id
         where v.id = :v
        """).param("v", volumeId)
        .query((rs, n) -> new SessionVolume(volumeId, SessionVolume.claimNameOf(volumeId), rs.getString(2), rs.getInt(1),
            SessionVolume.MOUNT_PATH))
        .single();
  }

  void startWorkflow(SessionStart start) {
    SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.session(start.spec().sessionId()))
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
        .setTypedSearchAttributes(io.temporal.common.SearchAttributes.newBuilder()
            .set(SearchAttributes.SESSION_ID, start.spec().sessionId())
            .set(SearchAttributes.USER_ID, start.spec().userId())
            .set(SearchAttributes.CLUSTER_ID, start.spec().clusterId()).build())
        .build());
    WorkflowClient.start(workflow::run, start);
  }

  /** Sends a command to the session's workflow and maps what it met to the API's answers. */
  public SessionView command(Caller.User caller, String sessionId, SessionCommand command) {
    String owner = jdbc.sql("select user_id from sessions where id = :id").param("id", sessionId).query(String.class)
        .optional().orElseThrow(() -> GshareException.notFound("session", sessionId));
    access.requireOwnerOrAdmin(caller, "session", sessionId, owner);
    SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(sessionId));
    SessionView view;
    try {
      view = switch (command) {
        case PAUSE -> workflow.pause();
        case RESUME -> workflow.resume();
        case TERMINATE -> workflow.terminate();
      };
    } catch (WorkflowNotFoundException | WorkflowUpdateException e) {
      String state = jdbc.sql("select state from sessions where id = :id").param("id", sessionId).query(String.class).single();
      if (command == SessionCommand.TERMINATE && SessionState.fromWire(state).ended()) {
        return new SessionView(sessionId, SessionState.fromWire(state), null, null, null, null, null, null, null);
      }
      throw new GshareException(ProblemCode.CONFLICT, "the session is " + state + "; it cannot " + command.wireName(),
          Map.of("state", state));
    }
    if (view.lastErrorType() != null) {
      ProblemCode code = java.util.Arrays.stream(ProblemCode.values()).filter(c -> c.code().equals(view.lastErrorType()))
          .findFirst().orElse(ProblemCode.CONFLICT);
      throw new GshareException(code, view.lastError(), Map.of("state", view.state().wireName()));
    }
    return view;
  }
}
