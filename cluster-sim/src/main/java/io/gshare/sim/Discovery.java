package io.gshare.sim;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscoveryBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The discovery documents the fabric8 mock leaves empty ({@code /api}, {@code /apis}, resource lists),
 * so that kubectl and generic clients can resolve resource types against the simulator.
 */
final class Discovery {

  private static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  /** group/version → resources served; the core group is "". */
  private final Map<String, List<APIResource>> resources = new LinkedHashMap<>();

  Discovery() {
    core("Namespace", "namespaces", false, "ns");
    core("Node", "nodes", false, "no");
    // The node proxy (the kubelet's checkpoint and stats summary calls go through it).
    resources.get("v1").add(new APIResourceBuilder().withName("nodes/proxy").withSingularName("").withNamespaced(false)
        .withKind("NodeProxyOptions").withVerbs("create", "delete", "get", "patch", "update").build());
    core("Pod", "pods", true, "po");
    // The eviction subresource (PodEviction); kubectl drain looks for it here, with its group and version,
    // before it evicts rather than deletes.
    resources.get("v1").add(new APIResourceBuilder().withName("pods/eviction").withSingularName("")
        .withNamespaced(true).withGroup("policy").withVersion("v1").withKind("Eviction").withVerbs("create").build());
    core("Service", "services", true, "svc");
    core("Endpoints", "endpoints", true, "ep");
    core("ConfigMap", "configmaps", true, "cm");
    core("Secret", "secrets", true);
    core("ServiceAccount", "serviceaccounts", true, "sa");
    core("PersistentVolumeClaim", "persistentvolumeclaims", true, "pvc");
    core("PersistentVolume", "persistentvolumes", false, "pv");
    core("Event", "events", true, "ev");
    add("apps", "v1", "Deployment", "deployments", true, "deploy");
    add("apps", "v1", "DaemonSet", "daemonsets", true, "ds");
    add("apps", "v1", "StatefulSet", "statefulsets", true, "sts");
    add("apps", "v1", "ReplicaSet", "replicasets", true, "rs");
    add("batch", "v1", "Job", "jobs", true);
    add("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false);
    add("networking.k8s.io", "v1", "Ingress", "ingresses", true, "ing");
    add("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false);
    add("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true, "netpol");
    add("rbac.authorization.k8s.io", "v1", "Role", "roles", true);
    add("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true);
    add("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false);
    add("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false);
    add("storage.k8s.io", "v1", "StorageClass", "storageclasses", false, "sc");
    add("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", true);
    add("coordination.k8s.io", "v1", "Lease", "leases", true);
    add("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, "pdb");
    // The Gateway API and Envoy Gateway's kinds, as a cluster with Envoy Gateway installed serves them.
    add("gateway.networking.k8s.io", "v1", "Gateway", "gateways", true);
    add("gateway.networking.k8s.io", "v1", "HTTPRoute", "httproutes", true);
    add("gateway.envoyproxy.io", "v1alpha1", "SecurityPolicy", "securitypolicies", true);
    add("gateway.envoyproxy.io", "v1alpha1", "Backend", "backends", true);
  }

  private void core(String kind, String plural, boolean namespaced, String... shortNames) {
    add("", "v1", kind, plural, namespaced, shortNames);
  }

  private void add(String group, String version, String kind, String plural, boolean namespaced, String... shortNames) {
    APIResource resource =
        new APIResourceBuilder()
            .withKind(kind)
            .withName(plural)
            .withSingularName(kind.toLowerCase(Locale.ROOT))
            .withNamespaced(namespaced)
            .withVerbs(VERBS)
            .withShortNames(shortNames)
            .build();
    resources.computeIfAbsent(groupVersion(group, version), k -> new ArrayList<>()).add(resource);
    if (List.of("Pod", "Node", "Deployment", "DaemonSet", "PersistentVolumeClaim", "PersistentVolume").contains(kind)) {
      resources.get(groupVersion(group, version))
          .add(new APIResourceBuilder().withKind(kind).withName(plural + "/status").withNamespaced(namespaced)
              .withVerbs("get", "patch", "update").build());
    }
  }

  private static String groupVersion(String group, String version) {
    return group.isEmpty() ? version : group + "/" + version;
  }

  Object coreVersions(String serverAddress) {
    return new APIVersionsBuilder()
        .withVersions("v1")
        .addNewServerAddressByClientCIDR("0.0.0.0/0", serverAddress)
        .build();
  }

  Object groups() {
    List<APIGroup> groups = new ArrayList<>();
    resources.keySet().stream()
        .filter(gv -> gv.contains("/"))
        .forEach(
            gv -> {
              String group = gv.substring(0, gv.indexOf('/'));
              String version = gv.substring(gv.indexOf('/') + 1);
              var preferred = new GroupVersionForDiscoveryBuilder().withGroupVersion(gv).withVersion(version).build();
              groups.add(
                  new APIGroupBuilder().withName(group).withVersions(preferred).withPreferredVersion(preferred).build());
            });
    return new APIGroupListBuilder().withGroups(groups).build();
  }

  private static final java.util.regex.Pattern COLLECTION = java.util.regex.Pattern.compile(
      "/(?:api/(v1)|apis/([^/]+/[^/]+))(?:/namespaces/[^/]+)?/([a-z0-9]+)/?");

  /**
   * The typed list kind and group/version for a collection path ({@code NodeList}, {@code v1}), or
   * null when {@code path} is not a collection this server describes.
   */
  String[] listKindOf(String path) {
    java.util.regex.Matcher m = COLLECTION.matcher(path);
    if (!m.matches()) {
      return null;
    }
    String groupVersion = m.group(1) != null ? m.group(1) : m.group(2);
    List<APIResource> list = resources.get(groupVersion);
    if (list == null) {
      return null;
    }
    return list.stream().filter(r -> r.getName().equals(m.group(3))).findFirst()
        .map(r -> new String[] {r.getKind() + "List", groupVersion}).orElse(null);
  }

  /** The resource list of {@code group/version} ("v1" for core), or null when not served. */
  Object resourceList(String groupVersion) {
    List<APIResource> list = resources.get(groupVersion);
    return list == null ? null : new APIResourceListBuilder().withGroupVersion(groupVersion).withResources(list).build();
  }
}
