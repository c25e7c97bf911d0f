package io.gshare.activities.cluster.model;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.gshare.workflows.cluster.WorkerEnv;
import io.gshare.workflows.kube.Labels;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The desired objects of a cluster's gShare worker, as pure functions of their settings (no client
 * here): the namespace, its ServiceAccount and RBAC, the operator token Secret, the Deployment.
 */
public final class WorkerObjects {

  public static final String NAMESPACE = "gshare-system";
  /** The worker's ServiceAccount, ClusterRole and binding. */
  public static final String NAME = "gshare-cluster-worker";
  /**
   * The worker's Deployment: {@code gshare-operator}, the name the operator guide's troubleshooting uses
   * ({@code kubectl -n gshare-system logs deploy/gshare-operator}).
   */
  public static final String DEPLOYMENT = "gshare-operator";
  /** What the Deployment was called before it took the guide's name; a redeploy removes it. */
  public static final String LEGACY_DEPLOYMENT = "gshare-cluster-worker";
  /** The uid the images run as (Jib's {@code container.user}, the chart's securityContext). */
  public static final long IMAGE_USER = 65532L;
  public static final String TOKEN_SECRET = "gshare-operator-internal-jwt";
  public static final String TOKEN_KEY = "internal-jwt";
  public static final String TOKEN_MOUNT = "/var/run/secrets/gshare";
  public static final String FIELD_MANAGER = "gshare-control-plane";

  /**
   * An optional Secret in the worker's namespace with its Temporal credentials, which an operator creates in
   * each cluster whose worker dials a Temporal that requires them: {@code tls.crt} and {@code tls.key} (mutual
   * TLS), {@code ca.crt} (the server's CA), {@code server-name}, {@code api-key}. Each key present is mounted
   * and named to the worker by its {@code GSHARE_TEMPORAL_*} variable.
   */
  public static final String TEMPORAL_CLIENT_SECRET = "gshare-temporal-client";
  public static final String TEMPORAL_CLIENT_MOUNT = "/var/run/secrets/gshare-temporal";
  private static final Map<String, WorkerEnv> TEMPORAL_CLIENT_FILES = Map.of("tls.crt", WorkerEnv.TEMPORAL_TLS_CERT,
      "tls.key", WorkerEnv.TEMPORAL_TLS_KEY, "ca.crt", WorkerEnv.TEMPORAL_TLS_CA, "api-key",
      WorkerEnv.TEMPORAL_API_KEY_FILE);
  private static final String TEMPORAL_SERVER_NAME_KEY = "server-name";

  /**
   * What a worker Deployment is made of.
   *
   * @param temporalGateway {@code temporalAddress} is the control plane's Temporal gateway: the worker sends its
   *     operator token as its API key and holds no Temporal credential ({@link #TEMPORAL_CLIENT_SECRET} is not mounted)
   * @param temporalTls the worker speaks TLS to {@code temporalAddress} with the JVM's trust store (the internal
   *     plane's ingress certificate) even with no CA file
   */
  public record Settings(String image, String imagePullPolicy, String temporalAddress, String temporalNamespace,
      String controlPlaneUrl, int inventoryIntervalSeconds, int volumeSyncIntervalSeconds, boolean temporalGateway,
      boolean temporalTls) {

    /** Straight to the frontend, with the credentials of the cluster's {@link #TEMPORAL_CLIENT_SECRET} if any. */
    public Settings(String image, String imagePullPolicy, String temporalAddress, String temporalNamespace,
        String controlPlaneUrl, int inventoryIntervalSeconds, int volumeSyncIntervalSeconds) {
      this(image, imagePullPolicy, temporalAddress, temporalNamespace, controlPlaneUrl, inventoryIntervalSeconds,
          volumeSyncIntervalSeconds, false, false);
    }
  }

  private WorkerObjects() {}

  /** The labels of everything gShare creates for a cluster's worker; the Deployment selects by their selector subset. */
  public static Labels labels(String clusterId) {
    return Labels.gshare().withName(NAME).withCluster(clusterId);
  }

  /**
   * The worker's environment, in {@link WorkerEnv} order: what the Deployment sets and the dev runtime's
   * local process gets, so both deployers set exactly the variables the worker reads.
   */
  public static Map<WorkerEnv, String> environment(String clusterId, String temporalAddress, String temporalNamespace,
      String controlPlaneUrl, String tokenFile, int inventoryIntervalSeconds, int volumeSyncIntervalSeconds) {
    Map<WorkerEnv, String> env = new EnumMap<>(WorkerEnv.class);
    env.put(WorkerEnv.CLUSTER_ID, clusterId);
    env.put(WorkerEnv.TEMPORAL_ADDRESS, temporalAddress);
    env.put(WorkerEnv.TEMPORAL_NAMESPACE, temporalNamespace);
    env.put(WorkerEnv.CONTROL_PLANE_URL, controlPlaneUrl);
    env.put(WorkerEnv.TOKEN_FILE, tokenFile);
    env.put(WorkerEnv.INVENTORY_INTERVAL, String.valueOf(inventoryIntervalSeconds));
    env.put(WorkerEnv.VOLUME_SYNC_INTERVAL, String.valueOf(volumeSyncIntervalSeconds));
    return env;
  }

  public static Namespace namespace(String clusterId) {
    return new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).withLabels(labels(clusterId).toMap()).endMetadata().build();
  }

  public static ServiceAccount serviceAccount(String clusterId) {
    return new ServiceAccountBuilder().withNewMetadata().withName(NAME).withNamespace(NAMESPACE)
        .withLabels(labels(clusterId).toMap()).endMetadata().build();
  }

  /** What the worker does in its cluster: read the inventory, run session pods, their services, ingresses and volumes. */
  public static ClusterRole clusterRole(String clusterId) {
    return new ClusterRoleBuilder().withNewMetadata().withName(NAME).withLabels(labels(clusterId).toMap()).endMetadata()
        .withRules(
            // patch: cordon (spec.unschedulable) and HAMi's per-GPU cordon annotation, for node drains.
            new PolicyRuleBuilder().withApiGroups("").withResources("nodes").withVerbs("get", "list", "watch", "patch").build(),
            new PolicyRuleBuilder().withApiGroups("").withResources("pods/eviction").withVerbs("create").build(),
            new PolicyRuleBuilder().withApiGroups("").withResources("nodes/proxy").withVerbs("get", "create").build(),
            new PolicyRuleBuilder().withApiGroups("").withResources("pods", "services", "persistentvolumeclaims", "secrets",
                "configmaps").withVerbs("get", "list", "watch", "create", "update", "patch", "delete").build(),
            // The sessions' namespace is applied (get, create, patch); never deleted: a worker deleting namespaces
            // could take kube-system with it (WorkerRbacIT).
            new PolicyRuleBuilder().withApiGroups("").withResources("namespaces").withVerbs("get", "create", "patch").build(),
            new PolicyRuleBuilder().withApiGroups("").withResources("pods/status", "events").withVerbs("get", "list", "watch").build(),
            new PolicyRuleBuilder().withApiGroups("networking.k8s.io").withResources("ingresses")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete").build(),
            // Session routes on clusters whose session_routing is gateway-api (Envoy Gateway).
            new PolicyRuleBuilder().withApiGroups("gateway.networking.k8s.io").withResources("httproutes")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete").build(),
            new PolicyRuleBuilder().withApiGroups("gateway.envoyproxy.io").withResources("securitypolicies", "backends")
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete").build(),
            new PolicyRuleBuilder().withApiGroups("node.k8s.io").withResources("runtimeclasses").withVerbs("get", "list").build(),
            new PolicyRuleBuilder().withApiGroups("apps").withResources("daemonsets", "deployments").withVerbs("get", "list").build(),
            new PolicyRuleBuilder().withApiGroups("storage.k8s.io").withResources("storageclasses", "csistoragecapacities")
                .withVerbs("get", "list", "watch").build())
        .build();
  }

  public static ClusterRoleBinding clusterRoleBinding(String clusterId) {
    return new ClusterRoleBindingBuilder().withNewMetadata().withName(NAME).withLabels(labels(clusterId).toMap()).endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAME)
        .addNewSubject().withKind("ServiceAccount").withName(NAME).withNamespace(NAMESPACE).endSubject()
        .build();
  }

  public static Secret tokenSecret(String clusterId, String token) {
    return new SecretBuilder().withNewMetadata().withName(TOKEN_SECRET).withNamespace(NAMESPACE)
        .withLabels(labels(clusterId).toMap()).endMetadata()
        .withType("Opaque")
        .addToStringData(TOKEN_KEY, token)
        .build();
  }

  public static Deployment deployment(String clusterId, Settings settings) {
    return deployment(clusterId, settings, Set.of());
  }

  /**
   * The Deployment, with the keys of {@link #TEMPORAL_CLIENT_SECRET} the cluster holds ({@code temporalClientKeys},
   * empty when it has none) mounted and named to the worker; through the gateway, none of them: the worker's
   * operator token is its only credential.
   */
  public static Deployment deployment(String clusterId, Settings settings, Set<String> heldTemporalClientKeys) {
    Set<String> temporalClientKeys = settings.temporalGateway() ? Set.of() : heldTemporalClientKeys;
    List<EnvVar> env = new ArrayList<>(environment(clusterId, settings.temporalAddress(),
        settings.temporalNamespace(), settings.controlPlaneUrl(), TOKEN_MOUNT + "/" + TOKEN_KEY,
        settings.inventoryIntervalSeconds(), settings.volumeSyncIntervalSeconds())
        .entrySet().stream()
        .map(e -> new EnvVarBuilder().withName(e.getKey().variable()).withValue(e.getValue()).build())
        .toList());
    TEMPORAL_CLIENT_FILES.entrySet().stream().filter(f -> temporalClientKeys.contains(f.getKey()))
        .sorted(Map.Entry.comparingByKey())
        .forEach(f -> env.add(new EnvVarBuilder().withName(f.getValue().variable())
            .withValue(TEMPORAL_CLIENT_MOUNT + "/" + f.getKey()).build()));
    if (settings.temporalGateway()) {
      env.add(new EnvVarBuilder().withName(WorkerEnv.TEMPORAL_API_KEY_FILE.variable())
          .withValue(TOKEN_MOUNT + "/" + TOKEN_KEY).build());
    }
    if (settings.temporalTls()) {
      env.add(new EnvVarBuilder().withName(WorkerEnv.TEMPORAL_TLS.variable()).withValue("true").build());
    }
    if (temporalClientKeys.contains(TEMPORAL_SERVER_NAME_KEY)) {
      env.add(new EnvVarBuilder().withName(WorkerEnv.TEMPORAL_TLS_SERVER_NAME.variable()).withNewValueFrom()
          .withNewSecretKeyRef(TEMPORAL_SERVER_NAME_KEY, TEMPORAL_CLIENT_SECRET, false).endValueFrom().build());
    }
    boolean temporalClient = temporalClientKeys.stream().anyMatch(TEMPORAL_CLIENT_FILES::containsKey);
    return new DeploymentBuilder()
        .withNewMetadata().withName(DEPLOYMENT).withNamespace(NAMESPACE).withLabels(labels(clusterId).toMap()).endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .withNewSelector().withMatchLabels(labels(clusterId).selectorLabels().toMap()).endSelector()
        // One worker at a time: two would both report the inventory and race on the same objects.
        .withNewStrategy().withType("Recreate").endStrategy()
        .withNewTemplate()
        .withNewMetadata().withLabels(labels(clusterId).toMap()).endMetadata()
        .withNewSpec()
        .withServiceAccountName(NAME)
        .withNewSecurityContext().withRunAsNonRoot(true).withRunAsUser(IMAGE_USER).withRunAsGroup(IMAGE_USER)
        .withFsGroup(IMAGE_USER).endSecurityContext()
        .addNewContainer()
        .withName("cluster-worker")
        .withImage(settings.image())
        .withImagePullPolicy(settings.imagePullPolicy())
        .withEnv(env)
        .withNewSecurityContext().withReadOnlyRootFilesystem(true).withAllowPrivilegeEscalation(false)
        .withNewCapabilities().withDrop("ALL").endCapabilities().endSecurityContext()
        .addNewVolumeMount().withName("operator-token").withMountPath(TOKEN_MOUNT).withReadOnly(true).endVolumeMount()
        .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
        .addAllToVolumeMounts(temporalClient ? List.of(new VolumeMountBuilder()
            .withName("temporal-client").withMountPath(TEMPORAL_CLIENT_MOUNT).withReadOnly(true).build()) : List.of())
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("384Mi"))
        .addToLimits("memory", new Quantity("768Mi"))
        .endResources()
        .endContainer()
        .addNewVolume().withName("operator-token").withNewSecret().withSecretName(TOKEN_SECRET)
        .addNewItem().withKey(TOKEN_KEY).withPath(TOKEN_KEY).endItem().endSecret().endVolume()
        .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
        .addAllToVolumes(temporalClient ? List.of(new VolumeBuilder()
            .withName("temporal-client").withNewSecret().withSecretName(TEMPORAL_CLIENT_SECRET).endSecret().build())
            : List.of())
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
