package io.gshare.api.session;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.ratelimit.RateLimit;
import io.gshare.api.ratelimit.RateLimited;
import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.session.SessionRepository;
import io.gshare.workflows.common.OperationProgress;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.session.SessionCommand;
import io.gshare.workflows.session.SessionView;
import io.gshare.workflows.session.SessionWorkflow;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.temporal.client.WorkflowClient;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.math.BigDecimal;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "sessions")
class SessionController {

  private final SessionRepository sessions;
  private final SessionService service;
  private final Access access;
  private final WorkflowClient client;

  SessionController(SessionRepository sessions, SessionService service, Access access, WorkflowClient client) {
    this.sessions = sessions;
    this.service = service;
    this.access = access;
    this.client = client;
  }

  /** @param next where the next page starts ({@code after=}); null on the last page */
  record SessionList(List<SessionRepository.Session> items, String next) {}

  /** @param clusterId run on this cluster only (the console's cluster selector); absent: wherever placement chooses */
  record NewSession(@NotBlank String offeringId, @NotBlank String imageId, String volumeId, @Size(max = 100) String name,
      String clusterId) {}

  /**
   * @param costSoFar credits charged so far (minutes, settlements, minus refunds)
   * @param operation the steps of the session's current or last command, while its workflow runs
   */
  record SessionDetail(SessionRepository.Session session, List<SessionRepository.HeldGpu> gpus, BigDecimal costSoFar, String warning,
      OperationProgress operation) {}

  @PostMapping("/api/v1/sessions")
  @RateLimited(RateLimit.USER_COMMANDS)
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Start a session: admitted and placed now (409 unserviceable / insufficient_capacity / quota_exceeded, 402 insufficient_credits), created by its workflow")
  @ProblemResponses({ProblemCode.INSUFFICIENT_CAPACITY, ProblemCode.INSUFFICIENT_CREDITS, ProblemCode.NOT_FOUND,
      ProblemCode.QUOTA_EXCEEDED, ProblemCode.TEMPORAL_UNAVAILABLE, ProblemCode.UNSERVICEABLE, ProblemCode.VOLUME_IN_USE})
  SessionDetail create(Caller.User caller, @Valid @RequestBody NewSession body) {
    String id = service.create(caller, body.offeringId(), body.imageId(), body.volumeId(), body.name(), body.clusterId());
    // The workflow has only just started: its steps are followed with GET, not waited for here.
    return detail(caller, id, false);
  }

  @GetMapping("/api/v1/sessions")
  @Operation(summary = "Your sessions, newest first, a page at a time (next: the cursor for after=); admins see all and may filter by cluster, node, state and user")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  SessionList list(Caller.User caller,
      @RequestParam(name = "user_id", required = false) String userId,
      @RequestParam(name = "cluster_id", required = false) String clusterId,
      @RequestParam(name = "node_id", required = false) String nodeId,
      @RequestParam(required = false) String state,
      @RequestParam(defaultValue = "100") int limit,
      @RequestParam(required = false) String after) {
    if (limit < 1 || limit > 1000) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    SessionRepository.Cursor cursor;
    try {
      cursor = after == null ? null : SessionRepository.Cursor.decode(after);
    } catch (IllegalArgumentException e) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "after must be the next cursor of an earlier page");
    }
    boolean othersAsked = (userId != null && !userId.equals(caller.userId())) || clusterId != null || nodeId != null;
    if (othersAsked && !caller.isAdmin()) {
      access.requireAdmin(caller, "session", null);
    }
    String owner = caller.isAdmin() ? userId : caller.userId();
    SessionRepository.Page page = sessions.find(new SessionRepository.Filter(owner, clusterId, nodeId, state), limit, cursor);
    return new SessionList(page.items(), page.next() == null ? null : page.next().encode());
  }

  @GetMapping("/api/v1/sessions/{id}")
  @Operation(summary = "One session: state, URL, node, GPUs, cost so far, the current command's steps")
  SessionDetail get(Caller.User caller, @PathVariable String id) {
    return detail(caller, id);
  }

  @PostMapping("/api/v1/sessions/{id}/pause")
  @RateLimited(RateLimit.USER_COMMANDS)
  @Operation(summary = "Pause: lossless (checkpoint) on nodes with CRIU and cuda-checkpoint ready, else cold; billing closes, GPUs are released")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  @CommandAnswers
  ResponseEntity<SessionDetail> pause(Caller.User caller, @PathVariable String id) {
    return answer(service.command(caller, id, SessionCommand.PAUSE), caller, id);
  }

  @PostMapping("/api/v1/sessions/{id}/resume")
  @RateLimited(RateLimit.USER_COMMANDS)
  @Operation(summary = "Resume: re-admitted and re-placed on the same GPU model; billing reopens")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.INSUFFICIENT_CAPACITY, ProblemCode.INSUFFICIENT_CREDITS,
      ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.QUOTA_EXCEEDED, ProblemCode.TEMPORAL_UNAVAILABLE,
      ProblemCode.UNSERVICEABLE})
  @CommandAnswers
  ResponseEntity<SessionDetail> resume(Caller.User caller, @PathVariable String id) {
    return answer(service.command(caller, id, SessionCommand.RESUME), caller, id);
  }

  @DeleteMapping("/api/v1/sessions/{id}")
  @RateLimited(RateLimit.USER_COMMANDS)
  @Operation(summary = "End a session: its objects deleted, billing settled, GPUs released; history kept")
  @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.TEMPORAL_UNAVAILABLE})
  @CommandAnswers
  ResponseEntity<SessionDetail> terminate(Caller.User caller, @PathVariable String id) {
    return answer(service.command(caller, id, SessionCommand.TERMINATE), caller, id);
  }

  private SessionDetail detail(Caller.User caller, String id) {
    return detail(caller, id, true);
  }

  /** The row, its GPUs and cost; with {@code live}, what its workflow says now (steps, warning). */
  private SessionDetail detail(Caller.User caller, String id, boolean live) {
    SessionRepository.Session session = sessions.findById(id).orElseThrow(() -> GshareException.notFound("session", id));
    access.requireOwnerOrAdmin(caller, "session", id, session.userId());
    List<SessionRepository.HeldGpu> gpus = sessions.heldGpusOf(id);
    BigDecimal cost = sessions.costSoFar(id);
    String warning = null;
    OperationProgress operation = null;
    if (live && !session.state().ended()) {
      try {
        SessionWorkflow workflow = client.newWorkflowStub(SessionWorkflow.class, WorkflowIds.session(id));
        operation = workflow.progress();
        SessionView view = workflow.view();
        warning = view == null ? null : view.warning();
      } catch (RuntimeException gone) {
        // no live workflow (ending, or being recovered): the row says enough
      }
    }
    return new SessionDetail(session, gpus, cost, warning, operation);
  }

  /** 200 once carried out; 202 while a command accepted by the workflow still runs (the detail shows it moving). */
  private ResponseEntity<SessionDetail> answer(boolean carriedOut, Caller.User caller, String id) {
    return ResponseEntity.status(carriedOut ? HttpStatus.OK : HttpStatus.ACCEPTED).body(detail(caller, id));
  }

  /** The successes of pause, resume and end, for the OpenAPI document. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @ApiResponse(responseCode = "200", description = "carried out: the session as it is now",
      useReturnTypeSchema = true)
  @ApiResponse(responseCode = "202", description = "accepted and still being"
      + " carried out after 20 s (its cluster slow or cut off): the session as it is; follow its state",
      useReturnTypeSchema = true)
  @interface CommandAnswers {}
}
