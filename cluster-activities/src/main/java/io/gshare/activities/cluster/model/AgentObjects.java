package io.gshare.activities.cluster.model;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.gshare.workflows.cluster.AgentEnv;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.kube.Labels;
import java.util.ArrayList;
import java.util.List;

/**
 * The usage agent's DaemonSet ({@code agent.enabled}), a pure function of the worker's settings: the worker's
 * image in {@code agent} mode on every GPU node (where sessions run), reading the node's cgroup v2 hierarchy
 * read-only and the node's HAMi monitor, and posting each second's samples with the worker's own token and
 * ServiceAccount (it lists the session pods of its node).
 */
public final class AgentObjects {

  public static final String DAEMON_SET = "gshare-usage-agent";
  /** Where the node's {@code /sys/fs/cgroup} is mounted in the agent's container. */
  public static final String CGROUP_MOUNT = "/host/sys/fs/cgroup";
  /** HAMi's vGPU monitor port on every GPU node (the device plugin's {@code vgpu-monitor} container). */
  public static final int HAMI_MONITOR_PORT = 9394;
  /** Set from the downward API only to build {@link AgentEnv#HAMI_MONITOR_URL}; the agent does not read it. */
  static final String NODE_IP = "GSHARE_NODE_IP";
  public static final int INTERVAL_MILLIS = 1000;

  private AgentObjects() {}

  public static Labels labels(String clusterId) {
    return Labels.gshare().withName(DAEMON_SET).withCluster(clusterId);
  }

  public static DaemonSet daemonSet(String clusterId, WorkerObjects.Settings settings) {
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVarBuilder().withName(AgentEnv.NODE_NAME.variable()).withNewValueFrom().withNewFieldRef()
        .withFieldPath("spec.nodeName").endFieldRef().endValueFrom().build());
    env.add(new EnvVarBuilder().withName(NODE_IP).withNewValueFrom().withNewFieldRef()
        .withFieldPath("status.hostIP").endFieldRef().endValueFrom().build());
    env.add(value(AgentEnv.CONTROL_PLANE_URL, settings.controlPlaneUrl()));
    env.add(value(AgentEnv.TOKEN_FILE, WorkerObjects.TOKEN_MOUNT + "/" + WorkerObjects.TOKEN_KEY));
    env.add(value(AgentEnv.CGROUP_ROOT, CGROUP_MOUNT));
    env.add(value(AgentEnv.HAMI_MONITOR_URL, "http://$(" + NODE_IP + "):" + HAMI_MONITOR_PORT + "/metrics"));
    env.add(value(AgentEnv.INTERVAL_MILLIS, String.valueOf(INTERVAL_MILLIS)));
    env.add(new EnvVarBuilder().withName("JAVA_TOOL_OPTIONS")
        .withValue("-XX:+UseSerialGC -XX:MaxRAMPercentage=60 -XX:TieredStopAtLevel=1").build());
    return new DaemonSetBuilder()
        .withNewMetadata().withName(DAEMON_SET).withNamespace(WorkerObjects.NAMESPACE)
        .withLabels(labels(clusterId).toMap()).endMetadata()
        .withNewSpec()
        .withNewSelector().withMatchLabels(labels(clusterId).selectorLabels().toMap()).endSelector()
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewTemplate()
        .withNewMetadata().withLabels(labels(clusterId).toMap()).endMetadata()
        .withNewSpec()
        .withServiceAccountName(WorkerObjects.NAME)
        .addToNodeSelector(LabelKeys.GPU, LabelKeys.GPU_ON)
        // GPU nodes are often tainted for GPU work only; the agent must run beside the sessions anyway.
        .addNewToleration().withOperator("Exists").endToleration()
        .withPriorityClassName("system-node-critical")
        .withNewSecurityContext().withRunAsNonRoot(true).withRunAsUser(WorkerObjects.IMAGE_USER)
        .withRunAsGroup(WorkerObjects.IMAGE_USER).withFsGroup(WorkerObjects.IMAGE_USER).endSecurityContext()
        .addNewContainer()
        .withName("usage-agent")
        .withImage(settings.image())
        .withImagePullPolicy(settings.imagePullPolicy())
        .withArgs("agent")
        .withEnv(env)
        .withNewSecurityContext().withReadOnlyRootFilesystem(true).withAllowPrivilegeEscalation(false)
        .withNewCapabilities().withDrop("ALL").endCapabilities().endSecurityContext()
        .addNewVolumeMount().withName("operator-token").withMountPath(WorkerObjects.TOKEN_MOUNT).withReadOnly(true)
        .endVolumeMount()
        .addNewVolumeMount().withName("cgroup").withMountPath(CGROUP_MOUNT).withReadOnly(true).endVolumeMount()
        .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
        .withNewResources()
        .addToRequests("cpu", new Quantity("20m"))
        .addToRequests("memory", new Quantity("128Mi"))
        .addToLimits("memory", new Quantity("256Mi"))
        .endResources()
        .endContainer()
        .addNewVolume().withName("operator-token").withNewSecret().withSecretName(WorkerObjects.TOKEN_SECRET)
        .addNewItem().withKey(WorkerObjects.TOKEN_KEY).withPath(WorkerObjects.TOKEN_KEY).endItem().endSecret().endVolume()
        .addNewVolume().withName("cgroup").withNewHostPath().withPath("/sys/fs/cgroup").withType("Directory")
        .endHostPath().endVolume()
        .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static EnvVar value(AgentEnv variable, String value) {
    return new EnvVarBuilder().withName(variable.variable()).withValue(value).build();
  }
}
