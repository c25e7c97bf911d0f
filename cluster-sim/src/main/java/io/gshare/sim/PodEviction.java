package io.gshare.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The eviction subresource ({@code POST /api/v1/namespaces/{ns}/pods/{name}/eviction} with a policy/v1
 * or policy/v1beta1 {@code Eviction}), which the fabric8 mock lacks, decided as the apiserver decides it:
 * a missing pod is 404; a pending, finished or deleting pod is deleted without looking at budgets;
 * otherwise the policy/v1 PodDisruptionBudgets of the pod's namespace whose selector picks the pod are
 * found: none → the pod is deleted; more than one → 500; one → its allowed disruptions are computed now
 * from the pods it selects (see {@link DisruptionBudgets}) and 0 refuses the eviction with 429
 * TooManyRequests (kubectl drain retries), else the pod is deleted and the answer is 201 Success. An
 * unready pod is evicted regardless when the budget's unhealthyPodEvictionPolicy is AlwaysAllow, or by
 * default when the budget is met. Deletion goes through the CRUD store, so watches see DELETED (or a
 * deletionTimestamp when the pod has finalizers).
 *
 * <p>Simplifications: the budget's status is not kept (nothing writes {@code status.disruptionsAllowed};
 * it is computed at each eviction), and for a {@code maxUnavailable} or percentage budget the expected
 * pod count is the {@code spec.replicas} of the selected pods' controllers found in the store (a
 * Deployment through its ReplicaSet, a ReplicaSet, StatefulSet or ReplicationController), a pod without
 * such a controller counting as one, where a real disruption controller would refuse to compute and
 * allow no disruption. Evictions are decided one at a time.
 */
final class PodEviction {

  private static final Logger log = LoggerFactory.getLogger(PodEviction.class);

  static final Pattern PATH = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction");
  static final String BLOCKED = "Cannot evict pod as it would violate the pod's disruption budget.";
  static final String MORE_THAN_ONE =
      "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";
  private static final Set<String> API_VERSIONS = Set.of("policy/v1", "policy/v1beta1");

  private final ObjectStore store;
  private final ObjectMapper json = new ObjectMapper();

  PodEviction(ObjectStore store) {
    this.store = store;
  }

  /** One eviction at a time, so two concurrent evictions cannot both spend the budget's last disruption. */
  synchronized MockResponse evict(String namespace, String name, String query, String body) throws Exception {
    JsonNode eviction = body == null || body.isBlank() ? null : json.readTree(body);
    if (eviction == null || !eviction.isObject() || !"Eviction".equals(eviction.path("kind").asText())
        || !API_VERSIONS.contains(eviction.path("apiVersion").asText())) {
      return ApiStatus.failure(400, "BadRequest", "the request body must be a policy/v1 Eviction", null);
    }
    String named = eviction.path("metadata").path("name").asText("");
    if (!named.isEmpty() && !named.equals(name)) {
      return ApiStatus.failure(400, "BadRequest", "name in URL does not match name in Eviction object", null);
    }
    String podPath = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    Pod pod = store.get(podPath, Pod.class);
    if (pod == null) {
      return ApiStatus.notFound("pods", name);
    }
    JsonNode options = eviction.path("deleteOptions");
    String uid = options.path("preconditions").path("uid").asText("");
    if (!uid.isEmpty() && !uid.equals(pod.getMetadata().getUid())) {
      return ApiStatus.failure(409, "Conflict", "Precondition failed: UID in precondition: " + uid
          + ", UID in object meta: " + pod.getMetadata().getUid(), null);
    }
    boolean dryRun = (query != null && query.matches("(.*&)?dryRun=All(&.*)?"))
        || options.path("dryRun").toString().contains("\"All\"");

    if (ignoresBudgets(pod)) {
      return delete(podPath, pod, dryRun, "no budget applies to a " + phase(pod) + " pod");
    }
    List<PodDisruptionBudget> budgets = store.list("/apis/policy/v1/namespaces/" + namespace + "/poddisruptionbudgets",
            PodDisruptionBudgetList.class).getItems().stream()
        .filter(b -> b.getSpec() != null && DisruptionBudgets.selects(b.getSpec().getSelector(), pod.getMetadata().getLabels()))
        .toList();
    if (budgets.isEmpty()) {
      return delete(podPath, pod, dryRun, "no disruption budget selects it");
    }
    if (budgets.size() > 1) {
      return ApiStatus.failure(500, null, MORE_THAN_ONE, null);
    }
    PodDisruptionBudget budget = budgets.get(0);
    PodDisruptionBudgetSpec spec = budget.getSpec();
    List<Pod> selected = store.list("/api/v1/namespaces/" + namespace + "/pods", PodList.class).getItems().stream()
        .filter(p -> DisruptionBudgets.selects(spec.getSelector(), p.getMetadata().getLabels()))
        .toList();
    int expected = DisruptionBudgets.countsSelectedPods(spec) ? selected.size() : expectedByControllers(selected);
    int healthy = (int) selected.stream().filter(DisruptionBudgets::healthy).count();
    int desired = DisruptionBudgets.desiredHealthy(spec, expected);
    String budgetName = budget.getMetadata().getName();
    if (!DisruptionBudgets.ready(pod)) {
      if ("AlwaysAllow".equals(spec.getUnhealthyPodEvictionPolicy())) {
        return delete(podPath, pod, dryRun, "it is unready and budget " + budgetName + " always allows that");
      }
      if (healthy >= desired && desired > 0) {
        return delete(podPath, pod, dryRun, "it is unready and budget " + budgetName + " is met");
      }
    }
    if (DisruptionBudgets.disruptionsAllowed(healthy, desired) == 0) {
      Map<String, Object> cause = new LinkedHashMap<>();
      cause.put("reason", "DisruptionBudget"); // StatusCause.Type is "reason" on the wire
      cause.put("message", "The disruption budget " + budgetName + " needs " + desired + " healthy pods and has "
          + healthy + " currently");
      log.info("eviction of pod {}/{} refused: budget {} needs {} healthy pods and has {}", namespace, name,
          budgetName, desired, healthy);
      return ApiStatus.failure(429, "TooManyRequests", BLOCKED, Map.of("causes", List.of(cause)));
    }
    return delete(podPath, pod, dryRun, "budget " + budgetName + " allows it");
  }

  /** Pending, finished and deleting pods are evicted without consulting budgets, as the apiserver does. */
  private static boolean ignoresBudgets(Pod pod) {
    String phase = phase(pod);
    return pod.getMetadata().getDeletionTimestamp() != null
        || phase.equals("Pending") || phase.equals("Succeeded") || phase.equals("Failed");
  }

  private static String phase(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
  }

  private MockResponse delete(String podPath, Pod pod, boolean dryRun, String why) {
    if (!dryRun) {
      int code = store.delete(podPath);
      if (code == 404) {
        return ApiStatus.notFound("pods", pod.getMetadata().getName());
      }
      log.info("evicted pod {}/{}: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(), why);
    }
    return ApiStatus.success(201);
  }

  /** The summed replicas of the selected pods' controllers; a pod without one counts as one. */
  private int expectedByControllers(List<Pod> pods) {
    Map<String, Integer> scales = new LinkedHashMap<>();
    int uncontrolled = 0;
    for (Pod pod : pods) {
      Map.Entry<String, Integer> scale = controllerScale(pod);
      if (scale == null) {
        uncontrolled++;
      } else {
        scales.put(scale.getKey(), scale.getValue());
      }
    }
    return uncontrolled + scales.values().stream().mapToInt(Integer::intValue).sum();
  }

  private Map.Entry<String, Integer> controllerScale(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    OwnerReference ref = controllerOf(pod);
    if (ref == null) {
      return null;
    }
    switch (ref.getKind()) {
      case "ReplicaSet" -> {
        ReplicaSet rs = owned(store.get("/apis/apps/v1/namespaces/" + ns + "/replicasets/" + ref.getName(), ReplicaSet.class), ref);
        if (rs == null) {
          return null;
        }
        OwnerReference up = controllerOf(rs);
        if (up != null && "Deployment".equals(up.getKind())) {
          Deployment d = owned(store.get("/apis/apps/v1/namespaces/" + ns + "/deployments/" + up.getName(), Deployment.class), up);
          if (d != null) {
            return Map.entry("Deployment/" + up.getName(), replicas(d.getSpec() == null ? null : d.getSpec().getReplicas()));
          }
        }
        return Map.entry("ReplicaSet/" + ref.getName(), replicas(rs.getSpec() == null ? null : rs.getSpec().getReplicas()));
      }
      case "StatefulSet" -> {
        StatefulSet sts = owned(store.get("/apis/apps/v1/namespaces/" + ns + "/statefulsets/" + ref.getName(), StatefulSet.class), ref);
        return sts == null ? null
            : Map.entry("StatefulSet/" + ref.getName(), replicas(sts.getSpec() == null ? null : sts.getSpec().getReplicas()));
      }
      case "ReplicationController" -> {
        ReplicationController rc =
            owned(store.get("/api/v1/namespaces/" + ns + "/replicationcontrollers/" + ref.getName(), ReplicationController.class), ref);
        return rc == null ? null
            : Map.entry("ReplicationController/" + ref.getName(), replicas(rc.getSpec() == null ? null : rc.getSpec().getReplicas()));
      }
      default -> {
        return null;
      }
    }
  }

  private static OwnerReference controllerOf(HasMetadata object) {
    List<OwnerReference> refs = object.getMetadata().getOwnerReferences();
    return refs == null ? null : refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst().orElse(null);
  }

  /** The controller when the reference names it (a uid, when given, must match), else null. */
  private static <T extends HasMetadata> T owned(T controller, OwnerReference ref) {
    if (controller == null) {
      return null;
    }
    return ref.getUid() == null || ref.getUid().isEmpty() || ref.getUid().equals(controller.getMetadata().getUid()) ? controller : null;
  }

  private static int replicas(Integer replicas) {
    return replicas == null ? 1 : replicas;
  }
}
