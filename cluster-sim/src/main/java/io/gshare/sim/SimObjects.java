package io.gshare.sim;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClassBuilder;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacityBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.kube.LabelKeys;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Builds the objects a real GPU cluster built by {@code hack/cluster-bootstrap.sh} would hold: nodes
 * as HAMi registers them, RuntimeClass {@code nvidia}, the HAMi device-plugin DaemonSet and the
 * ingress-nginx controller, and the seed's StorageClasses with their CSIStorageCapacity objects. Pure functions; {@code kube.GpuNodes} applies them to the cluster.
 */
public final class SimObjects {

  private SimObjects() {}

  /** HAMi prefixes the NVML device name with the vendor: {@code NVIDIA-NVIDIA H100 80GB HBM3}. */
  static String hamiType(String nvmlModel) {
    return "NVIDIA-" + nvmlModel;
  }

  /**
   * Stable across restarts, so a dev runtime that keeps its database sees the same cards, and unique
   * per simulated cluster, as real GPU uuids are worldwide.
   */
  public static String gpuUuid(String clusterName, String nodeName, int index) {
    return "GPU-" + UUID.nameUUIDFromBytes((clusterName + "/" + nodeName + "/" + index).getBytes(StandardCharsets.UTF_8));
  }

  public static Node node(String clusterName, SimSeed.NodeSpec spec, int ordinal, String kubernetesVersion, Instant now) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(LabelKeys.HOSTNAME, spec.name());
    labels.put(SimLabels.OS, "linux");
    labels.put(SimLabels.ARCH, "amd64");
    labels.put(LabelKeys.SIMULATED, LabelKeys.TRUE);
    if (spec.gpuMode() != null) {
      labels.put(LabelKeys.GPU_MODE, spec.gpuMode());
    }
    if ("storage".equals(spec.gpuMode())) {
      labels.put(LabelKeys.ROLE, LabelKeys.ROLE_STORAGE);
    }
    if (spec.hasGpus()) {
      labels.put(LabelKeys.GPU, LabelKeys.GPU_ON);
    }
    labels.putAll(spec.labels());

    Map<String, String> annotations = new LinkedHashMap<>();
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity(spec.hasGpus() ? "64" : "16"));
    capacity.put("memory", new Quantity(spec.hasGpus() ? "512Gi" : "64Gi"));
    capacity.put("pods", new Quantity("110"));
    capacity.put("ephemeral-storage", new Quantity(spec.ephemeralStorage()));
    if (spec.hasGpus()) {
      SimSeed.GpuSpec gpus = spec.gpus();
      int split = gpus.splitCountFor(spec.gpuMode());
      annotations.put(Annotations.HAMI_NODE_REGISTER, hamiRegister(clusterName, spec.name(), gpus, split));
      annotations.put(SimLabels.HAMI_HANDSHAKE, "Reported " + now);
      capacity.put("nvidia.com/gpu", new Quantity(String.valueOf((long) gpus.count() * split)));
      capacity.put("nvidia.com/gpumem", new Quantity(String.valueOf(gpus.count() * gpus.memoryMib())));
      capacity.put("nvidia.com/gpucores", new Quantity(String.valueOf(gpus.count() * 100L)));
    }

    return new NodeBuilder()
        .withNewMetadata()
        .withName(spec.name())
        .withLabels(labels)
        .withAnnotations(annotations)
        .withCreationTimestamp(now.toString())
        .endMetadata()
        .withNewSpec()
        .withPodCIDR(podCidr(ordinal))
        .withTaints(
            "storage".equals(spec.gpuMode())
                ? List.of(
                    new TaintBuilder()
                        .withKey(LabelKeys.ROLE)
                        .withValue(LabelKeys.ROLE_STORAGE)
                        .withEffect("NoSchedule")
                        .build())
                : List.of())
        .endSpec()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .withConditions(readyCondition("True", "KubeletReady", "kubelet is posting ready status (simulated)", now))
        .addNewAddress()
        .withType("InternalIP")
        .withAddress("10.0.0." + (10 + ordinal))
        .endAddress()
        .addNewAddress()
        .withType("Hostname")
        .withAddress(spec.name())
        .endAddress()
        .withNewNodeInfo()
        .withKubeletVersion(kubernetesVersion)
        .withContainerRuntimeVersion("containerd://2.1.4")
        .withOsImage("gShare simulator (no real hardware)")
        .withKernelVersion("simulated")
        .withOperatingSystem("linux")
        .withArchitecture("amd64")
        .withMachineID(UUID.nameUUIDFromBytes(spec.name().getBytes(StandardCharsets.UTF_8)).toString())
        .endNodeInfo()
        .endStatus()
        .build();
  }

  public static NodeCondition readyCondition(String status, String reason, String message, Instant now) {
    return new NodeConditionBuilder()
        .withType("Ready")
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastHeartbeatTime(now.toString())
        .withLastTransitionTime(now.toString())
        .build();
  }

  static String podCidr(int ordinal) {
    return "10.244." + ordinal + ".0/24";
  }

  /** The v2.8+ JSON encoding of {@code hami.io/node-nvidia-register}. */
  static String hamiRegister(String clusterName, String nodeName, SimSeed.GpuSpec gpus, int splitCount) {
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < gpus.count(); i++) {
      devices.add(
          "{\"id\":\"" + gpuUuid(clusterName, nodeName, i) + "\",\"index\":" + i + ",\"count\":" + splitCount
              + ",\"devmem\":" + gpus.memoryMib() + ",\"devcore\":100,\"type\":\"" + hamiType(gpus.model())
              + "\",\"numa\":" + (i < gpus.count() / 2 ? 0 : 1) + ",\"mode\":\"hami-core\",\"health\":true}");
    }
    return "[" + String.join(",", devices) + "]";
  }

  public static List<HasMetadata> addons(SimSeed.Addons addons) {
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(namespace("default"));
    objects.add(namespace("kube-system"));
    if (addons.hasRuntimeClassNvidia()) {
      objects.add(runtimeClassNvidia());
    }
    if (addons.hasHamiDevicePlugin()) {
      objects.add(hamiDevicePlugin());
    }
    if (addons.hasIngressNginx()) {
      objects.add(namespace("ingress-nginx"));
      objects.add(ingressClassNginx());
      objects.add(ingressNginxController());
    }
    return objects;
  }

  /** The seed's StorageClasses, then the namespaces and CSIStorageCapacity objects their drivers publish. */
  public static List<HasMetadata> storage(List<SimSeed.StorageClassSpec> classes) {
    List<HasMetadata> objects = new ArrayList<>();
    Set<String> namespaces = new LinkedHashSet<>();
    for (SimSeed.StorageClassSpec spec : classes) {
      objects.add(storageClass(spec));
      for (int i = 0; i < spec.capacities().size(); i++) {
        SimSeed.CapacitySpec capacity = spec.capacities().get(i);
        if (namespaces.add(capacity.namespace())) {
          objects.add(namespace(capacity.namespace()));
        }
        objects.add(storageCapacity(spec, capacity, i));
      }
    }
    return objects;
  }

  static StorageClass storageClass(SimSeed.StorageClassSpec spec) {
    StorageClassBuilder builder = new StorageClassBuilder()
        .withNewMetadata()
        .withName(spec.name())
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withProvisioner(spec.provisioner())
        .withReclaimPolicy(spec.reclaimPolicy())
        .withVolumeBindingMode(spec.volumeBindingMode())
        .withAllowVolumeExpansion(spec.expandable());
    if (spec.isDefault()) {
      builder.editMetadata().addToAnnotations(StorageKeys.DEFAULT_CLASS, "true").endMetadata();
    }
    return builder.build();
  }

  /** As the external-provisioner publishes them: labelled with the driver and the manager. */
  static CSIStorageCapacity storageCapacity(SimSeed.StorageClassSpec spec, SimSeed.CapacitySpec capacity, int index) {
    CSIStorageCapacityBuilder builder = new CSIStorageCapacityBuilder()
        .withNewMetadata()
        .withName(capacity.name() != null ? capacity.name() : spec.name() + "-" + index)
        .withNamespace(capacity.namespace())
        .addToLabels("csi.storage.k8s.io/drivername", spec.provisioner())
        .addToLabels("csi.storage.k8s.io/managed-by", "external-provisioner")
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withStorageClassName(spec.name())
        .withCapacity(new Quantity(capacity.capacity()))
        .withNodeTopology(capacity.nodeTopology());
    if (capacity.maximumVolumeSize() != null) {
      builder.withMaximumVolumeSize(new Quantity(capacity.maximumVolumeSize()));
    }
    return builder.build();
  }

  static Namespace namespace(String name) {
    return new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  static RuntimeClass runtimeClassNvidia() {
    return new RuntimeClassBuilder()
        .withNewMetadata()
        .withName("nvidia")
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withHandler("nvidia")
        .build();
  }

  static DaemonSet hamiDevicePlugin() {
    Map<String, String> selector = LabelKeys.HAMI_DEVICE_PLUGIN;
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName("hami-device-plugin")
        .withNamespace("kube-system")
        .addToLabels(selector)
        .addToLabels(LabelKeys.NAME, "hami")
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .withMatchLabels(selector)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(selector)
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(Map.of(LabelKeys.GPU, LabelKeys.GPU_ON))
        .addNewContainer()
        .withName("device-plugin")
        .withImage("projecthami/hami:v2.10.0")
        .endContainer()
        .addNewContainer()
        .withName("vgpu-monitor")
        .withImage("projecthami/hami:v2.10.0")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  static IngressClass ingressClassNginx() {
    return new IngressClassBuilder()
        .withNewMetadata()
        .withName("nginx")
        .addToLabels(LabelKeys.NAME, "ingress-nginx")
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withNewSpec()
        .withController("k8s.io/ingress-nginx")
        .endSpec()
        .build();
  }

  static Deployment ingressNginxController() {
    Map<String, String> selector = LabelKeys.INGRESS_NGINX_CONTROLLER;
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("ingress-nginx-controller")
        .withNamespace("ingress-nginx")
        .addToLabels(selector)
        .addToLabels(LabelKeys.SIMULATED, LabelKeys.TRUE)
        .endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .withNewSelector()
        .withMatchLabels(selector)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(selector)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("controller")
        .withImage("ingress-nginx/controller:v1.15.1")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
