package io.gshare.sim;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Front of the stand-in: answers what the fabric8 CRUD mock does not (version, health, discovery, the
 * eviction subresource, strategic merge patch, server-side apply, pod lists by {@code spec.nodeName}, the
 * kubelet's checkpoint and stats summary calls through the node proxy) and the simulator's own control API
 * under {@code /sim/v1}, and hands everything else to the mock (behind the claims' admission).
 */
final class SimDispatcher extends Dispatcher {

  private static final Pattern GROUP_VERSION = Pattern.compile("/apis/([^/]+)/([^/]+)/?");
  private static final Pattern NODE_ACTION = Pattern.compile("/sim/v1/nodes/([^/]+)/(drop|restore)");
  /** The kubelet checkpoint API (KEP-2008) through the apiserver's node proxy. */
  private static final Pattern CHECKPOINT =
      Pattern.compile("/api/v1/nodes/([^/]+)/proxy/checkpoint/([^/]+)/([^/]+)/([^/]+)");
  private static final Pattern POD_FAIL = Pattern.compile("/sim/v1/namespaces/([^/]+)/pods/([^/]+)/fail");
  /** What a pod's containers do, as their simulated cgroup counters show it. */
  private static final Pattern POD_LOAD = Pattern.compile("/sim/v1/namespaces/([^/]+)/pods/([^/]+)/load");
  /** The kubelet Summary API through the apiserver's node proxy. */
  private static final Pattern STATS_SUMMARY = Pattern.compile("/api/v1/nodes/([^/]+)/proxy/stats/summary/?");
  private static final Pattern PULL_FAILURES = Pattern.compile("/sim/v1/nodes/([^/]+)/image-pull-failures");
  private static final Pattern USED_BYTES =
      Pattern.compile("/sim/v1/namespaces/([^/]+)/persistentvolumeclaims/([^/]+)/used-bytes");

  private static final Pattern WATCH_QUERY = Pattern.compile("[?&]watch=(true|1)(&|$)");

  private static final Pattern GPU_METRICS = Pattern.compile("/sim/v1/gpus/([^/]+)/metrics");

  private final Dispatcher crud;
  private final Discovery discovery = new Discovery();
  private final KubernetesSerialization json;
  private final String gitVersion;
  private final Supplier<String> serverAddress;
  private final SimulatedCluster cluster;
  private final TableView tables;
  private final ServerSideApply serverSideApply;
  private final StrategicMergePatch strategicMergePatch;
  private final PodEviction evictions;

  SimDispatcher(
      Dispatcher crud, KubernetesSerialization json, String gitVersion, Supplier<String> serverAddress,
      SimulatedCluster cluster) {
    this.crud = crud;
    this.json = json;
    this.gitVersion = gitVersion;
    this.serverAddress = serverAddress;
    this.cluster = cluster;
    this.tables = new TableView(json);
    this.serverSideApply = new ServerSideApply(crud);
    this.strategicMergePatch = new StrategicMergePatch(crud);
    this.evictions = new PodEviction(new ObjectStore(crud, json));
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    int query = path.indexOf('?');
    String bare = query < 0 ? path : path.substring(0, query);
    boolean get = request.method() == HttpMethod.GET;
    try {
      if (bare.startsWith("/sim/")) {
        return control(request, bare);
      }
      String refusal = cluster.serviceAccountTokens().refusal(request.getHeader("Authorization"));
      if (refusal != null) {
        return status(401, "Unauthorized", refusal);
      }
      boolean watch = get && query >= 0 && WATCH_QUERY.matcher(path.substring(query)).find();
      ApiFaults.Fault fault = cluster.apiFaults().take(watch ? ApiFaults.Fault.WATCH : request.method().name(), bare);
      if (fault != null) {
        if (fault.kind() == ApiFaults.Kind.TIMEOUT_AFTER_WRITE) {
          serve(request, path, bare, query, get);
        }
        return ApiFaults.answer(fault.kind());
      }
      return serve(request, path, bare, query, get);
    } catch (IllegalArgumentException e) {
      return status(400, "BadRequest", e.getMessage());
    } catch (Exception e) {
      return status(500, "InternalError", String.valueOf(e.getMessage()));
    }
  }

  /** The request as the apiserver serves it, with no fault. */
  private MockResponse serve(RecordedRequest request, String path, String bare, int query, boolean get)
      throws Exception {
    Matcher checkpoint = CHECKPOINT.matcher(bare);
    if (checkpoint.matches() && request.method() == HttpMethod.POST) {
      return cluster.checkpoint(checkpoint.group(1), checkpoint.group(2), checkpoint.group(3), checkpoint.group(4))
          .map(archive -> ok(Map.of("items", java.util.List.of(archive))))
          .orElseGet(() -> status(500, "InternalError",
              "checkpointing is not supported on this node (CRIU and cuda-checkpoint are not ready)"));
    }
    Matcher stats = STATS_SUMMARY.matcher(bare);
    if (stats.matches() && get) {
      return statsSummary(stats.group(1));
    }
    Matcher tokenRequest = ServiceAccountTokens.PATH.matcher(bare);
    if (tokenRequest.matches()) {
      return request.method() == HttpMethod.POST ? tokenRequest(tokenRequest.group(1), tokenRequest.group(2), request)
          : status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
    Matcher eviction = PodEviction.PATH.matcher(bare);
    if (eviction.matches()) {
      return request.method() == HttpMethod.POST
          ? evictions.evict(eviction.group(1), eviction.group(2), query < 0 ? "" : path.substring(query + 1),
              request.getUtf8Body())
          : status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
    if (get) {
      switch (bare) {
        case "/version", "/version/":
          return ok(version());
        case "/healthz", "/readyz", "/livez":
          return new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain").setBody("ok");
        case "/api", "/api/":
          return ok(discovery.coreVersions(serverAddress.get()));
        case "/apis", "/apis/":
          return ok(discovery.groups());
        case "/api/v1", "/api/v1/":
          return ok(discovery.resourceList("v1"));
        default:
          break;
      }
      Matcher gv = GROUP_VERSION.matcher(bare);
      if (gv.matches()) {
        Object list = discovery.resourceList(gv.group(1) + "/" + gv.group(2));
        return list == null ? status(404, "NotFound", "the server could not find the requested resource") : ok(list);
      }
      if (bare.startsWith("/openapi/")) {
        return status(404, "NotFound", "the gShare simulator serves no OpenAPI schema");
      }
    }
    if (ServerSideApply.isApply(request)) {
      return serverSideApply.apply(request, bare);
    }
    if (StrategicMergePatch.isStrategicMergePatch(request)) {
      return saysJson(strategicMergePatch.apply(request, bare));
    }
    NodeNameFieldSelector byNode = NodeNameFieldSelector.of(request);
    MockResponse answer =
        saysJson(byNode == null ? crud.dispatch(request) : byNode.filter(crud.dispatch(byNode.forward(request))));
    if (get && answer.code() == 200 && TableView.wantsTable(request.getHeader("Accept")) && TableView.renders(bare)) {
      String body = new String(answer.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
      return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
          .setBody(tables.render(bare, body, java.time.Instant.now()));
    }
    return get && answer.code() == 200 ? typedList(bare, answer) : answer;
  }

  private MockResponse control(RecordedRequest request, String path) {
    if (request.method() == HttpMethod.GET && path.equals("/sim/v1/info")) {
      return ok(Map.of(
          "simulator", true,
          "description", "gShare simulated GPU cluster: a Kubernetes API stand-in, not real hardware",
          "kubernetesVersion", gitVersion,
          "droppedNodes", cluster.droppedNodes(),
          "cgroupRoot", cluster.cgroupRoot().toString()));
    }
    if (request.method() == HttpMethod.GET && path.equals(SimulatedCluster.DCGM_METRICS_PATH)) {
      return text(cluster.gpuMetrics().dcgm());
    }
    if (request.method() == HttpMethod.GET && path.equals(SimulatedCluster.HAMI_METRICS_PATH)) {
      return text(cluster.gpuMetrics().hami());
    }
    Matcher gpu = GPU_METRICS.matcher(path);
    if (gpu.matches()) {
      return gpuMetrics(request, gpu.group(1));
    }
    Matcher used = USED_BYTES.matcher(path);
    if (used.matches()) {
      return usedBytes(request, used.group(1), used.group(2));
    }
    Matcher load = POD_LOAD.matcher(path);
    if (load.matches()) {
      return podLoad(request, load.group(1), load.group(2));
    }
    Matcher pulls = PULL_FAILURES.matcher(path);
    if (pulls.matches()) {
      return pullFailures(request, pulls.group(1));
    }
    if (request.method() != HttpMethod.POST) {
      return status(405, "MethodNotAllowed", "the simulator's control API takes POST");
    }
    if (path.equals("/sim/v1/nodes")) {
      SimSeed.NodeSpec spec = json.unmarshal(request.getUtf8Body(), SimSeed.NodeSpec.class);
      boolean created = cluster.addNode(spec);
      return created ? status(201, "Created", "node " + spec.name() + " added")
          : status(409, "AlreadyExists", "node " + spec.name() + " already exists");
    }
    Matcher node = NODE_ACTION.matcher(path);
    if (node.matches()) {
      if ("drop".equals(node.group(2))) {
        cluster.dropNode(node.group(1));
      } else {
        cluster.restoreNode(node.group(1));
      }
      return status(200, "OK", "node " + node.group(1) + " " + node.group(2) + "ped");
    }
    Matcher pod = POD_FAIL.matcher(path);
    if (pod.matches()) {
      cluster.failPod(pod.group(1), pod.group(2), "SimulatedFailure");
      return status(200, "OK", "pod " + pod.group(1) + "/" + pod.group(2) + " will fail");
    }
    return status(404, "NotFound", "no such simulator control endpoint: " + path);
  }

  /** 404 for an unknown node and 503 for a dropped one (its kubelet does not answer), as through a real proxy. */
  private MockResponse statsSummary(String node) {
    if (cluster.isDropped(node)) {
      return status(503, "ServiceUnavailable", "error trying to reach service: the kubelet of simulated node " + node
          + " is not answering (dropped)");
    }
    return cluster.statsSummary(node).map(this::ok).orElseGet(() -> ApiStatus.notFound("nodes", node));
  }

  private static MockResponse text(String body) {
    return new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        .setBody(body);
  }

  /** A control request's JSON body ({@code MissingNode} when empty); null when it is not JSON. */
  private static com.fasterxml.jackson.databind.JsonNode jsonBody(RecordedRequest request) {
    try {
      com.fasterxml.jackson.databind.JsonNode body = CONTROL_JSON.readTree(request.getUtf8Body());
      return body == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : body;
    } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
      return null;
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper CONTROL_JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** {@code PUT {"util": 0-100, "xid": N}} sets what monitoring reports for the GPU; GET reads it. */
  private MockResponse gpuMetrics(RecordedRequest request, String uuid) {
    if (request.method() == HttpMethod.GET) {
      GpuMetrics.Values v = cluster.gpuMetrics().get(uuid);
      return ok(Map.of("util", v.util(), "xid", v.xid(), "lastKernel", v.lastKernel().toString()));
    }
    if (request.method() != HttpMethod.PUT) {
      return status(405, "MethodNotAllowed", "gpu metrics take PUT (or GET)");
    }
    com.fasterxml.jackson.databind.JsonNode body = jsonBody(request);
    if (body == null) {
      return status(400, "BadRequest", "the body must be {\"util\": 0-100, \"xid\": N}");
    }
    if (!body.path("util").isNumber() || (body.has("xid") && !body.path("xid").isIntegralNumber())) {
      return status(400, "BadRequest", "util must be a number from 0 to 100 and xid an integer >= 0");
    }
    double util = body.path("util").asDouble();
    int xid = body.path("xid").asInt(0);
    if (!cluster.setGpuMetrics(uuid, util, xid)) {
      return status(404, "NotFound", "no simulated GPU " + uuid);
    }
    return ok(Map.of("util", util, "xid", xid));
  }

  /**
   * {@code PUT {"image": "...", "reason": "no space left on device"}} makes pulls of that reference fail on
   * the node; {@code DELETE} with {@code {"image": "..."}} lets them work again.
   */
  private MockResponse pullFailures(RecordedRequest request, String node) {
    if (request.method() != HttpMethod.PUT && request.method() != HttpMethod.DELETE) {
      return status(405, "MethodNotAllowed", "image-pull-failures takes PUT (or DELETE)");
    }
    com.fasterxml.jackson.databind.JsonNode body = jsonBody(request);
    if (body == null) {
      return status(400, "BadRequest", "the body must be {\"image\": \"...\", \"reason\": \"...\"}");
    }
    String image = body.path("image").asText("");
    if (image.isBlank()) {
      return status(400, "BadRequest", "image is required");
    }
    boolean put = request.method() == HttpMethod.PUT;
    cluster.failImagePulls(node, image, put ? body.path("reason").asText("failed to resolve reference") : null);
    return status(200, "OK", "pulls of " + image + " on " + node + (put ? " fail" : " work again"));
  }

  /** {@code PUT {"used_bytes": N}} sets what the stats summary reports for the claim's volume; GET reads it. */
  private MockResponse usedBytes(RecordedRequest request, String namespace, String claim) {
    if (request.method() == HttpMethod.GET) {
      return ok(Map.of("used_bytes", cluster.volumeUsedBytes(namespace, claim)));
    }
    if (request.method() != HttpMethod.PUT) {
      return status(405, "MethodNotAllowed", "used-bytes takes PUT (or GET)");
    }
    com.fasterxml.jackson.databind.JsonNode body = jsonBody(request);
    if (body == null) {
      return status(400, "BadRequest", "the body must be {\"used_bytes\": N}");
    }
    com.fasterxml.jackson.databind.JsonNode value = body.path("used_bytes");
    if (!value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 0) {
      return status(400, "BadRequest", "used_bytes must be an integer >= 0");
    }
    if (!cluster.setVolumeUsedBytes(namespace, claim, value.asLong())) {
      return ApiStatus.notFound("persistentvolumeclaims", claim);
    }
    return ok(Map.of("used_bytes", value.asLong()));
  }

  private static final java.util.List<String> LOAD_FIELDS =
      java.util.List.of("cpu_cores", "memory_bytes", "io_read_bytes_per_second", "io_write_bytes_per_second");

  /**
   * {@code PUT {"cpu_cores": 1.5, "memory_bytes": N, "io_read_bytes_per_second": N, "io_write_bytes_per_second": N}}
   * sets what the pod's containers do from the next second on, fields left out keeping their value; GET reads it.
   */
  private MockResponse podLoad(RecordedRequest request, String namespace, String pod) {
    if (request.method() == HttpMethod.GET) {
      SimulatedCgroups.Load current = cluster.cgroups().load(namespace, pod);
      return current == null ? ApiStatus.notFound("pods", pod) : ok(loadJson(current));
    }
    if (request.method() != HttpMethod.PUT) {
      return status(405, "MethodNotAllowed", "load takes PUT (or GET)");
    }
    com.fasterxml.jackson.databind.JsonNode body = jsonBody(request);
    if (body == null || !body.isObject()) {
      return status(400, "BadRequest", "the body must be a JSON object with any of " + LOAD_FIELDS);
    }
    for (var field : (Iterable<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>>) body::fields) {
      if (!LOAD_FIELDS.contains(field.getKey())) {
        return status(400, "BadRequest", "unknown field " + field.getKey() + "; the fields are " + LOAD_FIELDS);
      }
      com.fasterxml.jackson.databind.JsonNode value = field.getValue();
      if (!value.isNumber() || !SimulatedCgroups.Load.valid(value.asDouble())
          || field.getKey().equals("memory_bytes") && value.asDouble() > Long.MAX_VALUE) {
        return status(400, "BadRequest", field.getKey() + " must be a finite number >= 0");
      }
    }
    SimulatedCgroups.Load current = cluster.cgroups().load(namespace, pod);
    if (current == null) {
      return ApiStatus.notFound("pods", pod);
    }
    SimulatedCgroups.Load wanted = new SimulatedCgroups.Load(
        body.path("cpu_cores").asDouble(current.cpuCores()),
        body.has("memory_bytes") ? Math.round(body.get("memory_bytes").asDouble()) : current.memoryBytes(),
        body.path("io_read_bytes_per_second").asDouble(current.ioReadBytesPerSecond()),
        body.path("io_write_bytes_per_second").asDouble(current.ioWriteBytesPerSecond()));
    if (!cluster.setPodLoad(namespace, pod, wanted.cpuCores(), wanted.memoryBytes(), wanted.ioReadBytesPerSecond(),
        wanted.ioWriteBytesPerSecond())) {
      return ApiStatus.notFound("pods", pod);
    }
    return ok(loadJson(wanted));
  }

  private static Map<String, Object> loadJson(SimulatedCgroups.Load load) {
    return Map.of("cpu_cores", load.cpuCores(), "memory_bytes", load.memoryBytes(),
        "io_read_bytes_per_second", load.ioReadBytesPerSecond(), "io_write_bytes_per_second",
        load.ioWriteBytesPerSecond());
  }

  /**
   * The mock answers without a Content-Type; kubectl's typed clients (cordon, drain) ask for protobuf
   * first and, without one, would read the JSON as protobuf.
   */
  private static MockResponse saysJson(MockResponse answer) {
    if (answer.getWebSocketListener() == null && answer.header("Content-Type") == null && answer.getBody() != null
        && answer.getBody().size() > 0) {
      answer.setHeader("Content-Type", "application/json");
    }
    return answer;
  }

  /** The mock answers every list as kind "List"; a real apiserver names the type ("NodeList"). */
  private MockResponse typedList(String path, MockResponse answer) {
    String[] kind = discovery.listKindOf(path);
    if (kind == null) {
      return answer;
    }
    String body = new String(answer.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
    String generic = "{\"apiVersion\":\"v1\",\"kind\":\"List\"";
    if (!body.startsWith(generic)) {
      return answer;
    }
    String typed = "{\"apiVersion\":\"" + kind[1] + "\",\"kind\":\"" + kind[0] + "\"" + body.substring(generic.length());
    return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(typed);
  }

  private Map<String, Object> version() {
    // "v1.36.0+gshare-sim": semver build metadata keeps the version parseable and says what it is.
    String plain = gitVersion.startsWith("v") ? gitVersion.substring(1) : gitVersion;
    String[] parts = plain.split("[.+-]");
    return Map.of(
        "major", parts[0],
        "minor", parts.length > 1 ? parts[1] : "0",
        "gitVersion", gitVersion + "+gshare-sim",
        "gitCommit", "simulator",
        "gitTreeState", "clean",
        "buildDate", "2026-01-01T00:00:00Z",
        "goVersion", "n/a (gShare simulator)",
        "compiler", "gc",
        "platform", "linux/amd64");
  }

  /** The TokenRequest subresource: a bound token of an existing ServiceAccount (201), as the kubelet asks for one. */
  private MockResponse tokenRequest(String namespace, String name, RecordedRequest request) {
    if (cluster.store().get("/api/v1/namespaces/" + namespace + "/serviceaccounts/" + name,
        io.fabric8.kubernetes.api.model.ServiceAccount.class) == null) {
      return status(404, "NotFound", "serviceaccounts \"" + name + "\" not found");
    }
    com.fasterxml.jackson.databind.JsonNode seconds = jsonBody(request).at("/spec/expirationSeconds");
    ServiceAccountTokens.Minted minted;
    try {
      minted = cluster.serviceAccountTokens().mint(namespace, name, seconds.isNumber() ? seconds.asLong() : null);
    } catch (IllegalArgumentException invalid) {
      return status(422, "Invalid", invalid.getMessage());
    }
    return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json").setBody(json.asJson(
        Map.of("kind", "TokenRequest", "apiVersion", "authentication.k8s.io/v1",
            "metadata", Map.of("name", name, "namespace", namespace),
            "spec", Map.of("audiences", java.util.List.of("https://kubernetes.default.svc"),
                "expirationSeconds", minted.expirationSeconds()),
            "status", Map.of("token", minted.token(), "expirationTimestamp", minted.expiresAt().truncatedTo(
                java.time.temporal.ChronoUnit.SECONDS).toString()))));
  }

  private MockResponse ok(Object body) {
    return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(json.asJson(body));
  }

  private MockResponse status(int code, String reason, String message) {
    String body = json.asJson(Map.of(
        "kind", "Status", "apiVersion", "v1", "status", code < 400 ? "Success" : "Failure",
        "reason", reason, "message", message, "code", code));
    return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body);
  }
}
