package io.gshare.api.system;

import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.api.security.SuperAdminOnly;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.core.cluster.Cluster;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.workflows.common.TaskQueues;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What an operator checks first: the schema version, whether Temporal answers, and who polls the
 * control queue and each cluster's queue.
 */
@RestController
@Tag(name = "system")
class SystemController {

  private final Flyway flyway;
  private final WorkflowServiceStubs stubs;
  private final TemporalProperties temporal;
  private final ClusterRepository clusters;
  private final TaskQueuePollers pollers;
  private final String version;
  private final Tokens tokens;

  SystemController(Flyway flyway, WorkflowServiceStubs stubs, TemporalProperties temporal, ClusterRepository clusters,
      TaskQueuePollers pollers, ObjectProvider<BuildProperties> build, Tokens tokens) {
    this.tokens = tokens;
    this.flyway = flyway;
    this.stubs = stubs;
    this.temporal = temporal;
    this.clusters = clusters;
    this.pollers = pollers;
    BuildProperties info = build.getIfAvailable();
    this.version = info == null ? "dev" : info.getVersion();
  }

  record Database(String schemaVersion, int pendingMigrations) {}

  record Temporal(String address, String namespace, boolean reachable, String error) {}

  record Queue(String name, String role, String clusterId, String clusterName, Boolean simulated, boolean polled,
      List<TaskQueuePollers.Poller> pollers, String source) {}

  record SystemStatus(String version, Database database, Temporal temporal, List<Queue> taskQueues) {}

  @GetMapping("/api/v1/system")
  @Operation(summary = "Schema version, Temporal reachability, and the workers polling gshare-control and each cluster queue")
  @AdminOnly
  SystemStatus system(Caller.User caller) {
    MigrationInfo current = flyway.info().current();
    Database database = new Database(current == null ? null : current.getVersion().getVersion(), flyway.info().pending().length);

    Temporal temporalStatus;
    try {
      stubs.blockingStub().withDeadlineAfter(3, TimeUnit.SECONDS).getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      temporalStatus = new Temporal(temporal.address(), temporal.namespace(), true, null);
    } catch (RuntimeException e) {
      temporalStatus = new Temporal(temporal.address(), temporal.namespace(), false, e.getMessage());
    }

    List<Cluster> all = clusters.findAll(false);
    List<String> queues = new ArrayList<>();
    queues.add(TaskQueues.CONTROL);
    all.forEach(c -> queues.add(TaskQueues.cluster(c.id())));
    Map<String, TaskQueuePollers.QueueStatus> status =
        temporalStatus.reachable() ? pollers.statusOf(queues) : Map.of();

    List<Queue> view = new ArrayList<>();
    view.add(queue(TaskQueues.CONTROL, "control", null, status));
    all.forEach(c -> view.add(queue(TaskQueues.cluster(c.id()), "cluster-worker", c, status)));
    return new SystemStatus(version, database, temporalStatus, view);
  }

  record RotatedKey(String kind, String kid) {}

  @PostMapping("/api/v1/system/keys/{kind}/rotate")
  @Operation(summary = "Rotate a signing key (super admins): kind internal or user; the previous key keeps verifying until its tokens expire")
  @SuperAdminOnly
  RotatedKey rotate(Caller.User caller, @PathVariable String kind) {
    TokenKind tokenKind = switch (kind) {
      case "internal" -> TokenKind.INTERNAL;
      case "user" -> TokenKind.USER;
      default -> throw new GshareException(ProblemCode.NOT_FOUND,
          "no signing key kind '" + kind + "' (internal or user)");
    };
    return new RotatedKey(kind, tokens.rotate(tokenKind).getKeyID());
  }

  private static Queue queue(String name, String role, Cluster cluster, Map<String, TaskQueuePollers.QueueStatus> status) {
    TaskQueuePollers.QueueStatus s = status.get(name);
    return new Queue(name, role,
        cluster == null ? null : cluster.id(), cluster == null ? null : cluster.name(),
        cluster == null ? null : cluster.simulated(),
        s != null && s.polled(), s == null ? List.of() : s.pollers(), s == null ? "unknown" : s.source());
  }
}
