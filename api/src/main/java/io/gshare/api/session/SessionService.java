package io.gshare.api.session;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.gshare.activities.control.SessionStarts;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.catalogue.ImageRepository;
import io.gshare.core.catalogue.OfferingRepository;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.placement.PlacementService;
import io.gshare.core.policy.Policy;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.support.NewIds;
import io.gshare.core.volume.VolumeRepository;
import io.gshare.workflows.cluster.ClusterStatus;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.GpuPlacement;
import io.gshare.workflows.session.SessionCommand;
import io.gshare.workflows.session.SessionSnapshot;
import io.gshare.workflows.session.SessionStart;
import io.gshare.workflows.session.SessionState;
import io.gshare.workflows.session.SessionTexts;
import io.gshare.workflows.session.SessionView;
import io.gshare.workflows.session.SessionVolume;
import io.gshare.workflows.session.SessionWorkflow;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates sessions and hands their commands to their workflows. Create admits and places in one
 * transaction with the session row, then starts {@code session-<id>}; pause, resume and terminate
 * are workflow updates; the API never calls a cluster itself.
 */
@Service
public class SessionService {

  private final SessionRepository sessions;
  private final ImageRepository images;
  private final VolumeRepository volumes;
  private final PlacementService placement;
  private final OfferingRepository offerings;
  private final WorkflowClient client;
  private final Access access;
  private final TransactionTemplate transactions;
  private final ClusterRepository clusterRoutes;
  private final SessionStarts starts;

  SessionService(SessionRepository sessions, ImageRepository images, VolumeRepository volumes,
      PlacementService placement, OfferingRepository offerings,
      WorkflowClient client, Access access, TransactionTemplate transactions,
      ClusterRepository clusterRoutes, SessionStarts starts) {
    this.clusterRoutes = clusterRoutes;
    this.sessions = sessions;
    this.images = images;
    this.volumes = volumes;
    this.placement = placement;
    this.offerings = offerings;
    this.client = client;
    this.access = access;
    this.transactions = transactions;
    this.starts = starts;
  }

  /**
   * Where a browser without a cookie on a session's domain signs in: configured, or the console's
   * {@code /auth/connect} on the host that serves the auth check (the api serves both).
   */
  public String signInUrl() {
    return starts.settings().signInUrl();
  }

  /** Admits, places (on {@code clusterId} only, when given) and starts a session; answers with its id. */
  public String create(Caller.User caller, String offeringId, String imageId, String volumeId, String name,
      String clusterId) {
    if (clusterId != null && clusterRoutes.findById(clusterId).filter(c -> c.status() != ClusterStatus.DETACHED).isEmpty()) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "no cluster '" + clusterId
          + "': cluster_id must name an attached cluster (GET /api/v1/clusters), or be left out to let placement choose");
    }
    ImageRepository.Image image = images.findById(imageId).filter(ImageRepository.Image::active)
        .orElseThrow(() -> new GshareException(ProblemCode.VALIDATION_FAILED, "no active image '" + imageId + "'"));
    if (volumeId != null) {
      String owner = volumes.findById(volumeId).map(VolumeRepository.Volume::ownerId)
          .orElseThrow(() -> GshareException.notFound("volume", volumeId));
      access.requireOwnerOrAdmin(caller, "volume", volumeId, owner);
      refuseWhenVolumeInUse(volumeId);
    }
    OfferingRepository.Offering offering = offerings.findById(offeringId).filter(OfferingRepository.Offering::active)
        .orElseThrow(() -> new GshareException(ProblemCode.UNSERVICEABLE, "no active offering '" + offeringId + "'"));
    String sessionId = NewIds.next("ses");
    Placed placed;
    try {
      placed = transactions.execute(tx -> place(caller, sessionId, offering, imageId, image, volumeId, name, clusterId));
    } catch (DuplicateKeyException raced) {
      // Another create took the volume between the check above and this insert.
      refuseWhenVolumeInUse(volumeId);
      throw raced;
    }
    Policy policy = placed.decision().policy();
    GpuPlacement where = placed.decision().placement();
    SessionVolume volume = volumeId == null ? null : starts.volumeOf(volumeId, where.clusterId());
    SessionStart start = new SessionStart(
        starts.specOf(sessionId, caller.userId(), where.clusterId(), image.reference(), image.port(), image.path(),
            placed.domain(), policy, volume, placed.checkpointRegistry()),
        SessionSnapshot.creating(where));
    try {
      starts.start(start);
    } catch (RuntimeException e) {
      // Never strand held GPUs behind a session no workflow looks after: both or neither.
      transactions.executeWithoutResult(tx -> {
        placement.release(sessionId);
        sessions.markFailed(sessionId, "could not start its workflow: " + e.getMessage());
      });
      throw e;
    }
    return sessionId;
  }

  private record Placed(PlacementService.Decision decision, String domain, String checkpointRegistry) {}

  /** The session row, its GPUs and (with a volume) the claim its cluster will make: one transaction. */
  private Placed place(Caller.User caller, String sessionId, OfferingRepository.Offering offering, String imageId,
      ImageRepository.Image image, String volumeId, String name, String clusterId) {
    // Waits for a delete of the volume in flight (and makes a later one wait for this session): a deleted
    // volume is never mounted, a mounted one never deleted.
    if (volumeId != null && !volumes.lockLive(volumeId)) {
      throw GshareException.notFound("volume", volumeId);
    }
    sessions.insertPending(new SessionRepository.NewSession(sessionId, caller.userId(), name, offering.id(),
        offering.gpuModel(), offering.mode(), offering.pricePerHour(), imageId, image.reference(), volumeId,
        WorkflowIds.session(sessionId)));
    PlacementService.Decision decision = placement.allocate(
        new PlacementService.Request(sessionId, caller.userId(), offering.id(), clusterId));
    GpuPlacement where = decision.placement();
    SessionRepository.ClusterTarget cluster = sessions.clusterTargetOf(where.clusterId());
    sessions.markPlaced(sessionId, where, cluster.name());
    if (volumeId != null) {
      // Recorded before the cluster claims it, so every claim of the volume can be found (and reclaimed) later.
      volumes.recordClaim(volumeId, where.clusterId(), SessionVolume.claimNameOf(volumeId));
    }
    return new Placed(decision, cluster.sessionDomain(), cluster.checkpointRegistry());
  }

  private void refuseWhenVolumeInUse(String volumeId) {
    sessions.unendedSessionOn(volumeId).ifPresent(user -> {
      throw new GshareException(ProblemCode.VOLUME_IN_USE, "volume " + volumeId + " is used by session "
          + user[0] + " (" + user[1] + "); a volume serves one session at a time, so end that one first",
          Map.of("session_id", user[0]));
    });
  }

  /**
   * How long a command's request waits for the workflow to carry it out. A pause or an end takes seconds; one whose
   * cluster does not answer (its worker cut off) is accepted, stays queued in the workflow, and the request answers
   * 202 with the session as it is rather than hang until the cluster is back.
   */
  static final Duration COMMAND_WAIT = Duration.ofSeconds(20);

  /**
   * Sends a command to the session's workflow and maps what it met to the API's answers: true when it was carried out,
   * false when it was accepted and is still being carried out after {@link #COMMAND_WAIT}. A refusal (ended, busy)
   * comes at once, from the workflow's validator.
   */
  public boolean command(Caller.User caller, String sessionId, SessionCommand command) {
    String owner = sessions.findById(sessionId).map(SessionRepository.Session::userId)
        .orElseThrow(() -> GshareException.notFound("session", sessionId));
    access.requireOwnerOrAdmin(caller, "session", sessionId, owner);
    SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(sessionId));
    UpdateOptions<SessionView> accepted = UpdateOptions.<SessionView>newBuilder()
        .setWaitForStage(WorkflowUpdateStage.ACCEPTED).build();
    SessionView view;
    Deadline waitEnds = Deadline.after(COMMAND_WAIT.toNanos(), TimeUnit.NANOSECONDS);
    try {
      WorkflowUpdateHandle<SessionView> handle = startWithin(waitEnds, () -> switch (command) {
        case PAUSE -> WorkflowClient.startUpdate(workflow::pause, accepted);
        case RESUME -> WorkflowClient.startUpdate(workflow::resume, accepted);
        case TERMINATE -> WorkflowClient.startUpdate(workflow::terminate, accepted);
      });
      view = handle.getResultAsync().get(Math.max(0, waitEnds.timeRemaining(TimeUnit.NANOSECONDS)),
          TimeUnit.NANOSECONDS);
    } catch (WorkflowServiceException notTaken) {
      Status.Code code = notTaken.getCause() instanceof StatusRuntimeException grpc ? grpc.getStatus().getCode() : null;
      if (code == Status.Code.RESOURCE_EXHAUSTED) {
        // Temporal holds a bounded number of updates in flight per workflow; past it the command was never taken.
        throw new GshareException(ProblemCode.OPERATION_IN_PROGRESS, "the session has as many commands waiting as it "
            + "takes at once; this " + command.wireName() + " was not taken, send it again in a few seconds",
            Map.of("operation_id", WorkflowIds.session(sessionId)));
      }
      if (code == Status.Code.DEADLINE_EXCEEDED) {
        return false; // sent within the wait but not yet taken: it may still be, so the answer is "being carried out"
      }
      throw notTaken;
    } catch (TimeoutException stillRunning) {
      return false;
    } catch (ExecutionException failed) {
      // The validator's refusal (busy, ended) comes back through the handle too, as does a command the workflow
      // could not finish (the session ended under it).
      if (failed.getCause() instanceof WorkflowNotFoundException || failed.getCause() instanceof WorkflowUpdateException) {
        return refused((WorkflowException) failed.getCause(), sessionId, command);
      }
      throw failed.getCause() instanceof RuntimeException e ? e : new IllegalStateException(failed.getCause());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the session's " + command.wireName(), interrupted);
    } catch (WorkflowNotFoundException | WorkflowUpdateException e) {
      return refused(e, sessionId, command);
    }
    if (view.lastErrorType() != null) {
      ProblemCode code = Arrays.stream(ProblemCode.values()).filter(c -> c.code().equals(view.lastErrorType()))
          .findFirst().orElse(ProblemCode.CONFLICT);
      throw new GshareException(code, view.lastError(), Map.of("state", view.state().wireName()));
    }
    return true;
  }

  /** Fires the deadlines that bound how long a command waits to be taken (a gRPC context deadline needs a timer). */
  private static final ScheduledExecutorService COMMAND_DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread timer = new Thread(r, "session-command-deadlines");
    timer.setDaemon(true);
    return timer;
  });

  /**
   * Starts an update under a gRPC deadline: the SDK otherwise waits up to a minute for the update to be taken, and
   * retries a workflow's full in-flight limit for as long, so a burst of commands on one session would hold requests
   * past any client's patience. Past the deadline the SDK's call ends with DEADLINE_EXCEEDED, or with the last
   * RESOURCE_EXHAUSTED it was retrying.
   */
  private static WorkflowUpdateHandle<SessionView> startWithin(Deadline deadline,
      Callable<WorkflowUpdateHandle<SessionView>> start) {
    Context.CancellableContext bounded = Context.current().withDeadline(deadline, COMMAND_DEADLINES);
    try {
      return bounded.call(start);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      bounded.cancel(null);
    }
  }

  /**
   * What a command the workflow refused (its validator: busy, ended) or could not take (the workflow is gone) answers:
   * 409 in words; ending an ended session is done already.
   */
  private boolean refused(WorkflowException e, String sessionId, SessionCommand command) {
    if (e.getCause() instanceof ApplicationFailure refused
        && SessionTexts.isBusy(refused.getType(), refused.getOriginalMessage())) {
      throw new GshareException(ProblemCode.OPERATION_IN_PROGRESS, refused.getOriginalMessage(),
          Map.of("operation_id", WorkflowIds.session(sessionId)));
    }
    SessionState state = sessions.stateOf(sessionId).orElseThrow();
    if (command == SessionCommand.TERMINATE && state.ended()) {
      return true;
    }
    throw new GshareException(ProblemCode.CONFLICT, "the session is " + state.wireName() + "; it cannot "
        + command.wireName(), Map.of("state", state.wireName()));
  }
}
