package io.gshare.api.catalogue;

import io.gshare.api.operation.OperationService;
import io.gshare.api.security.Caller;
import io.gshare.core.catalogue.ImageRepository;
import io.gshare.core.catalogue.PrepullTargets;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.NodeLiveness;
import io.gshare.workflows.cluster.ClusterStatus;
import io.gshare.workflows.common.Ids;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.image.ImagePrepullWorkflow;
import io.gshare.workflows.image.PrepullRequest;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.stereotype.Service;

/**
 * Starts image pre-pulls. The api resolves which nodes of which clusters (every ready GPU node of every
 * connected cluster unless told), refusing unknown or unusable ids before anything starts; the workflow
 * pulls through each cluster's worker.
 */
@Service
public class ImagePrepullService {

  private static final Set<ClusterStatus> USABLE_CLUSTER = EnumSet.of(ClusterStatus.CONNECTED);

  private final ImageRepository images;
  private final PrepullTargets targets;
  private final OperationService operations;
  private final WorkflowClient client;

  ImagePrepullService(ImageRepository images, PrepullTargets targets, OperationService operations,
      WorkflowClient client) {
    this.images = images;
    this.targets = targets;
    this.operations = operations;
    this.client = client;
  }

  /** What a started pre-pull answers with: the image, the nodes asked for by cluster, the operation. */
  public record Started(ImageRepository.Image image, Map<String, List<String>> nodes, String operationId) {}

  public Started prepull(Caller.User caller, String imageId, List<String> clusterIds, List<String> nodeIds) {
    ImageRepository.Image image = images.findById(imageId).orElseThrow(() -> GshareException.notFound("image", imageId));
    Set<String> clusters = ids("cluster_ids", clusterIds);
    Set<String> named = ids("node_ids", nodeIds);
    if (clusters != null) {
      Map<String, ClusterStatus> found = new LinkedHashMap<>();
      targets.clusters(clusters).forEach(c -> found.put(c.clusterId(), c.status()));
      for (String id : clusters) {
        if (!found.containsKey(id)) {
          throw invalid("cluster_ids", "no cluster " + id);
        }
        if (!USABLE_CLUSTER.contains(found.get(id))) {
          throw invalid("cluster_ids", "cluster " + id + " is " + found.get(id).wireName() + ", not connected");
        }
      }
    }
    List<PrepullTargets.Node> nodes;
    if (named != null) {
      nodes = targets.nodes(named);
      Set<String> found = new LinkedHashSet<>();
      nodes.forEach(n -> found.add(n.nodeId()));
      for (String id : named) {
        if (!found.contains(id)) {
          throw invalid("node_ids", "no node " + id);
        }
      }
      for (PrepullTargets.Node n : nodes) {
        if (clusters != null && !clusters.contains(n.clusterId())) {
          throw invalid("node_ids", "node " + n.nodeId() + " is in cluster " + n.clusterId() + ", not in cluster_ids");
        }
        if (!USABLE_CLUSTER.contains(n.clusterStatus())) {
          throw invalid("node_ids", "node " + n.nodeId() + "'s cluster " + n.clusterId() + " is "
              + n.clusterStatus().wireName() + ", not connected");
        }
        if (n.liveness() != NodeLiveness.READY) {
          throw invalid("node_ids", "node " + n.nodeId() + " is " + n.liveness().wireName() + ", not ready");
        }
      }
    } else {
      nodes = targets.readyGpuNodes(clusters);
    }
    if (nodes.isEmpty()) {
      throw invalid("cluster_ids", "no ready GPU node to pull onto");
    }
    Map<String, List<String>> byCluster = new TreeMap<>();
    nodes.forEach(n -> byCluster.computeIfAbsent(n.clusterId(), c -> new ArrayList<>()).add(n.hostname()));
    PrepullRequest request = new PrepullRequest(image.id(), image.reference(), byCluster.entrySet().stream()
        .map(e -> new PrepullRequest.ClusterNodes(e.getKey(), e.getValue())).toList());

    String workflowId = WorkflowIds.imagePrepull(image.id());
    ImagePrepullWorkflow workflow = client.newWorkflowStub(ImagePrepullWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(TaskQueues.CONTROL)
        // A second pre-pull of the image while one runs is refused (409 naming it), not merged.
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
        .setWorkflowExecutionTimeout(Duration.ofHours(3))
        .build());
    if (running(workflowId)) {
      throw inProgress(workflowId);
    }
    operations.started(workflowId, "image.prepull", image.id(), caller.userId());
    try {
      WorkflowClient.start(workflow::prepull, request);
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw inProgress(workflowId);
    }
    return new Started(image, byCluster, workflowId);
  }

  /** Checked before the operation record is rewritten, so a refused second start leaves the running one's record. */
  private boolean running(String workflowId) {
    try {
      return client.newUntypedWorkflowStub(workflowId).describe().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (RuntimeException none) {
      return false;
    }
  }

  private static GshareException inProgress(String workflowId) {
    return new GshareException(ProblemCode.OPERATION_IN_PROGRESS, "operation " + workflowId
        + " is already running; follow it", Map.of("operation_id", workflowId));
  }

  /** Null when not given; otherwise the distinct ids, each checked for shape. */
  private static Set<String> ids(String field, List<String> ids) {
    if (ids == null) {
      return null;
    }
    if (ids.isEmpty()) {
      throw invalid(field, "must not be empty when given (leave it out for every connected cluster)");
    }
    Set<String> distinct = new LinkedHashSet<>();
    for (String id : ids) {
      if (!Ids.isValid(id)) {
        throw invalid(field, "'" + id + "' is not an id");
      }
      distinct.add(id);
    }
    return distinct;
  }

  private static GshareException invalid(String field, String message) {
    return new GshareException(ProblemCode.VALIDATION_FAILED, field + ": " + message,
        Map.of("errors", List.of(Map.of("field", field, "message", message))));
  }
}
