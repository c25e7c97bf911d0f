package io.gshare.api.node;

import io.gshare.api.operation.OperationService;
import io.gshare.api.security.Caller;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.node.NodeDrains;
import io.gshare.workflows.common.SearchAttributes;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.common.WorkflowIds;
import io.gshare.workflows.node.DrainRequest;
import io.gshare.workflows.node.NodeDevicesWorkflow;
import io.gshare.workflows.node.NodeDrainWorkflow;
import io.gshare.workflows.node.NodeTarget;
import io.gshare.workflows.node.NodeUncordonWorkflow;
import io.gshare.workflows.session.DrainMode;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * Starts node drains, uncordons and HAMi device-cordon syncs. The api validates and records; the
 * workflows do the work, in the cluster and through each session's own workflow.
 */
@Service
public class NodeDrainService {

  public static final long DEFAULT_DEADLINE_SECONDS = 900;
  public static final long MIN_DEADLINE_SECONDS = 30;
  public static final long MAX_DEADLINE_SECONDS = 86_400;

  private final NodeDrains drains;
  private final OperationService operations;
  private final WorkflowClient client;

  NodeDrainService(NodeDrains drains, OperationService operations, WorkflowClient client) {
    this.drains = drains;
    this.operations = operations;
    this.client = client;
  }

  /** What a started operation answers with: the node as it is now and the operation to follow. */
  public record Started(NodeDrains.Target node, String operationId) {}

  public Started drain(Caller.User caller, String nodeId, String modeName, Long deadlineSeconds, String reason) {
    DrainMode mode = modeName == null ? DrainMode.MIGRATE : DrainMode.fromWire(modeName).orElseThrow(() ->
        invalid("mode", "must be one of " + DrainMode.wireNames()));
    long deadline = deadlineSeconds == null ? DEFAULT_DEADLINE_SECONDS : deadlineSeconds;
    if (deadline < MIN_DEADLINE_SECONDS || deadline > MAX_DEADLINE_SECONDS) {
      throw invalid("deadline_seconds", "must be between " + MIN_DEADLINE_SECONDS + " and " + MAX_DEADLINE_SECONDS);
    }
    return start(caller.userId(), nodeId, mode, deadline, reason);
  }

  /**
   * A drain gShare starts on its own (a node-level fatal Xid): sessions paused with {@code reason}, the node cordoned
   * until an admin uncordons it. Nothing happens when the node is already draining or drained.
   */
  public void drainForFault(String nodeId, String reason) {
    NodeDrains.Target node = node(nodeId);
    if (node.drainState() != null) {
      return;
    }
    try {
      start(null, nodeId, DrainMode.PAUSE, DEFAULT_DEADLINE_SECONDS, reason);
    } catch (GshareException running) {
      // a drain of this node already runs: it takes the node out too
    }
  }

  private Started start(String userId, String nodeId, DrainMode mode, long deadline, String reason) {
    NodeDrains.Target node = node(nodeId);
    String workflowId = WorkflowIds.nodeDrain(nodeId);
    NodeDrainWorkflow workflow = client.newWorkflowStub(NodeDrainWorkflow.class, options(workflowId, node,
        // The deadline bounds the steps; the execution gets room to record how it ended.
        Duration.ofSeconds(deadline).plusMinutes(10)));
    operations.started(workflowId, "node.drain", nodeId, userId);
    start(() -> WorkflowClient.start(workflow::drain,
        new DrainRequest(node.nodeId(), node.clusterId(), node.hostname(), mode, deadline, reason)), workflowId);
    return new Started(node(nodeId), workflowId);
  }

  /** Cancels a drain under way (what it moved stays moved), then clears the cordon and the drain mark. */
  public Started uncordon(Caller.User caller, String nodeId) {
    NodeDrains.Target node = node(nodeId);
    try {
      client.newUntypedWorkflowStub(WorkflowIds.nodeDrain(nodeId)).cancel();
    } catch (WorkflowException notRunning) {
      // No drain runs: nothing to cancel.
    }
    String workflowId = WorkflowIds.nodeUncordon(nodeId);
    NodeUncordonWorkflow workflow = client.newWorkflowStub(NodeUncordonWorkflow.class,
        options(workflowId, node, Duration.ofMinutes(15)));
    operations.started(workflowId, "node.uncordon", nodeId, caller.userId());
    start(() -> WorkflowClient.start(workflow::uncordon, new NodeTarget(node.nodeId(), node.clusterId(), node.hostname())),
        workflowId);
    return new Started(node(nodeId), workflowId);
  }

  /**
   * Writes the node's cordoned GPUs to HAMi's annotation through its cluster's worker. A newer sync
   * replaces one still running: each writes the whole current set.
   */
  public void syncDeviceCordon(String nodeId) {
    NodeDrains.Target node = node(nodeId);
    NodeDevicesWorkflow workflow = client.newWorkflowStub(NodeDevicesWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(WorkflowIds.nodeDevices(nodeId))
        .setTaskQueue(TaskQueues.CONTROL)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING)
        .setWorkflowExecutionTimeout(Duration.ofHours(1))
        .setTypedSearchAttributes(attributes(node))
        .build());
    WorkflowClient.start(workflow::sync, new NodeTarget(node.nodeId(), node.clusterId(), node.hostname()));
  }

  private NodeDrains.Target node(String nodeId) {
    return drains.target(nodeId).orElseThrow(() -> GshareException.notFound("node", nodeId));
  }

  private static WorkflowOptions options(String workflowId, NodeDrains.Target node, Duration timeout) {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(TaskQueues.CONTROL)
        // A second drain while one runs is refused (409 operation_in_progress naming it), not merged.
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
        .setWorkflowExecutionTimeout(timeout)
        .setTypedSearchAttributes(attributes(node))
        .build();
  }

  private static io.temporal.common.SearchAttributes attributes(NodeDrains.Target node) {
    return io.temporal.common.SearchAttributes.newBuilder()
        .set(SearchAttributes.NODE_ID, node.nodeId())
        .set(SearchAttributes.CLUSTER_ID, node.clusterId()).build();
  }

  private static void start(Runnable start, String workflowId) {
    try {
      start.run();
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw new GshareException(ProblemCode.OPERATION_IN_PROGRESS, "operation " + workflowId + " is already running;"
          + " follow it, or uncordon the node to stop it", Map.of("operation_id", workflowId));
    }
  }

  private static GshareException invalid(String field, String message) {
    return new GshareException(ProblemCode.VALIDATION_FAILED, field + " " + message,
        Map.of("errors", List.of(Map.of("field", field, "message", message))));
  }
}
