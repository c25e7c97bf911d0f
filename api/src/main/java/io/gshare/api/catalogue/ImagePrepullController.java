package io.gshare.api.catalogue;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Image pre-pull, for admins: answers 202 with the operation to follow. */
@RestController
@AdminOnly
@Tag(name = "catalogue")
class ImagePrepullController {

  private final ImagePrepullService prepulls;

  ImagePrepullController(ImagePrepullService prepulls) {
    this.prepulls = prepulls;
  }

  /**
   * @param clusterIds only these clusters (default: every connected one)
   * @param nodeIds only these nodes (default: every ready GPU node of those clusters)
   */
  record PrepullBody(@Size(max = 100) List<String> clusterIds, @Size(max = 5000) List<String> nodeIds) {}

  record ImageRef(String id, String name, String reference) {}

  record OperationRef(String id, String href) {}

  @Schema(name = "PrepullAccepted")
  record Accepted(ImageRef image, Map<String, List<String>> nodes, OperationRef operation) {}

  @PostMapping("/api/v1/images/{id}/prepull")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(summary = "Pull an image onto GPU nodes ahead of the first session (admins); 409 operation_in_progress"
      + " while a pre-pull of it runs")
  @ProblemResponses({ProblemCode.OPERATION_IN_PROGRESS, ProblemCode.TEMPORAL_UNAVAILABLE})
  Accepted prepull(Caller.User caller, @PathVariable String id, @Valid @RequestBody(required = false) PrepullBody body) {
    PrepullBody request = body == null ? new PrepullBody(null, null) : body;
    ImagePrepullService.Started started = prepulls.prepull(caller, id, request.clusterIds(), request.nodeIds());
    return new Accepted(new ImageRef(started.image().id(), started.image().name(), started.image().reference()),
        started.nodes(), new OperationRef(started.operationId(), "/api/v1/operations/" + started.operationId()));
  }
}
