package io.gshare.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gshare.workflows.kube.LabelKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Server-side printing for nodes and pods, so {@code kubectl get nodes|pods} against the simulator
 * shows the columns a real apiserver sends (STATUS, ROLES, VERSION, READY, IP, NODE) rather than
 * kubectl's bare NAME/AGE fallback. Other kinds keep that fallback.
 */
final class TableView {

  private static final Pattern NODES = Pattern.compile("/api/v1/nodes(/[^/]+)?");
  private static final Pattern PODS = Pattern.compile("/api/v1(/namespaces/[^/]+)?/pods(/[^/]+)?");

  private final KubernetesSerialization json;

  TableView(KubernetesSerialization json) {
    this.json = json;
  }

  static boolean wantsTable(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  /** True when {@code path} is a node or pod read this view can render. */
  static boolean renders(String path) {
    return NODES.matcher(path).matches() || PODS.matcher(path).matches();
  }

  /** Renders the JSON a CRUD read answered ({@code body}) as a meta.k8s.io/v1 Table. */
  String render(String path, String body, Instant now) {
    Matcher nodes = NODES.matcher(path);
    if (nodes.matches()) {
      List<Node> items = nodes.group(1) == null ? json.unmarshal(body, NodeList.class).getItems()
          : List.of(json.unmarshal(body, Node.class));
      return table(
          List.of(col("Name", "string"), col("Status", "string"), col("Roles", "string"), col("Age", "string"),
              col("Version", "string"), col("GPU-Mode", "string", 0), col("Internal-IP", "string", 1)),
          items.stream().map(n -> row(n.getMetadata(), List.of(
              n.getMetadata().getName(), nodeStatus(n), roles(n), age(n.getMetadata().getCreationTimestamp(), now),
              n.getStatus().getNodeInfo().getKubeletVersion(),
              n.getMetadata().getLabels().getOrDefault(LabelKeys.GPU_MODE, "<none>"),
              n.getStatus().getAddresses().isEmpty() ? "<none>" : n.getStatus().getAddresses().get(0).getAddress())))
              .collect(Collectors.toList()));
    }
    Matcher pods = PODS.matcher(path);
    if (pods.matches()) {
      List<Pod> items = pods.group(2) == null ? json.unmarshal(body, PodList.class).getItems()
          : List.of(json.unmarshal(body, Pod.class));
      return table(
          List.of(col("Name", "string"), col("Ready", "string"), col("Status", "string"), col("Restarts", "string"),
              col("Age", "string"), col("IP", "string", 1), col("Node", "string", 1)),
          items.stream().map(p -> row(p.getMetadata(), List.of(
              p.getMetadata().getName(), readyContainers(p), podStatus(p), "0",
              age(p.getMetadata().getCreationTimestamp(), now),
              p.getStatus() == null || p.getStatus().getPodIP() == null ? "<none>" : p.getStatus().getPodIP(),
              p.getSpec().getNodeName() == null ? "<none>" : p.getSpec().getNodeName())))
              .collect(Collectors.toList()));
    }
    throw new IllegalArgumentException("no table view for " + path);
  }

  private String table(List<Map<String, Object>> columns, List<Map<String, Object>> rows) {
    Map<String, Object> table = new LinkedHashMap<>();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    table.put("metadata", Map.of());
    table.put("columnDefinitions", columns);
    table.put("rows", rows);
    return json.asJson(table);
  }

  private static Map<String, Object> col(String name, String type) {
    return col(name, type, 0);
  }

  private static Map<String, Object> col(String name, String type, int priority) {
    return Map.of("name", name, "type", type, "format", name.equals("Name") ? "name" : "", "description", name,
        "priority", priority);
  }

  private static Map<String, Object> row(io.fabric8.kubernetes.api.model.ObjectMeta meta, List<Object> cells) {
    Map<String, Object> partial = new LinkedHashMap<>();
    partial.put("kind", "PartialObjectMetadata");
    partial.put("apiVersion", "meta.k8s.io/v1");
    partial.put("metadata", meta);
    return Map.of("cells", cells, "object", partial);
  }

  private static String nodeStatus(Node n) {
    String ready = n.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
        .map(c -> "True".equals(c.getStatus()) ? "Ready" : "NotReady").findFirst().orElse("Unknown");
    return Boolean.TRUE.equals(n.getSpec().getUnschedulable()) ? ready + ",SchedulingDisabled" : ready;
  }

  private static String roles(Node n) {
    List<String> roles = new ArrayList<>();
    n.getMetadata().getLabels().keySet().forEach(k -> {
      if (k.startsWith(LabelKeys.NODE_ROLE_PREFIX)) {
        roles.add(k.substring(LabelKeys.NODE_ROLE_PREFIX.length()));
      }
    });
    return roles.isEmpty() ? "<none>" : String.join(",", roles);
  }

  private static String readyContainers(Pod p) {
    int total = p.getSpec().getContainers().size();
    long ready = p.getStatus() == null || p.getStatus().getContainerStatuses() == null ? 0
        : p.getStatus().getContainerStatuses().stream().filter(c -> Boolean.TRUE.equals(c.getReady())).count();
    return ready + "/" + total;
  }

  private static String podStatus(Pod p) {
    if (p.getStatus() == null || p.getStatus().getPhase() == null) {
      return "Pending";
    }
    return p.getStatus().getReason() != null ? p.getStatus().getReason() : p.getStatus().getPhase();
  }

  private static String age(String created, Instant now) {
    if (created == null) {
      return "<unknown>";
    }
    Duration d = Duration.between(Instant.parse(created), now);
    if (d.toDays() > 0) {
      return d.toDays() + "d";
    }
    if (d.toHours() > 0) {
      return d.toHours() + "h";
    }
    if (d.toMinutes() > 0) {
      return d.toMinutes() + "m";
    }
    return Math.max(0, d.toSeconds()) + "s";
  }
}
