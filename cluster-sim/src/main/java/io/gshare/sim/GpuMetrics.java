package io.gshare.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.gshare.workflows.kube.Annotations;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * What the simulated GPUs report to monitoring: per GPU a utilization and a last Xid, set from Java
 * ({@code KubeCluster.setGpuMetrics}), served in the formats of the DCGM exporter
 * ({@code DCGM_FI_DEV_GPU_UTIL}, {@code DCGM_FI_DEV_XID_ERRORS}; one endpoint for all nodes, each series
 * labelled with its {@code Hostname}) and of HAMi's vGPU monitor (v2.9+ names,
 * {@code hami_container_device_utilization_ratio} and {@code hami_container_last_kernel_elapsed_seconds} per
 * container and device). A GPU never set is idle (0 %, no Xid) and last ran a kernel when the simulator
 * started. Dropped nodes are left out, as their exporters do not answer.
 */
public final class GpuMetrics {

  /** One GPU's values. */
  record Values(double util, int xid, Instant lastKernel) {}

  private final ClusterView cluster;
  private final Clock clock;
  private final Predicate<String> dropped;
  private final Instant started;
  private final Map<String, Values> byUuid = new ConcurrentHashMap<>();
  private final ObjectMapper json = new ObjectMapper();

  public GpuMetrics(ClusterView cluster, Clock clock, Predicate<String> dropped) {
    this.cluster = cluster;
    this.clock = clock;
    this.dropped = dropped;
    this.started = clock.instant();
  }

  /** Sets a GPU's utilization (percent, 0 to 100) and last Xid (0 for none); false for an unknown GPU. */
  public boolean set(String uuid, double util, int xid) {
    if (util < 0 || util > 100 || Double.isNaN(util) || xid < 0) {
      throw new IllegalArgumentException("util is a percentage from 0 to 100 and xid an integer >= 0");
    }
    if (gpus().stream().noneMatch(g -> g.uuid().equals(uuid))) {
      return false;
    }
    Instant now = clock.instant();
    byUuid.compute(uuid, (k, old) -> new Values(util, xid,
        util > 0 ? now : old == null ? started : old.util() > 0 ? now : old.lastKernel()));
    return true;
  }

  Values get(String uuid) {
    Values v = byUuid.getOrDefault(uuid, new Values(0, 0, started));
    // a busy GPU ran a kernel just now
    return v.util() > 0 ? new Values(v.util(), v.xid(), clock.instant()) : v;
  }

  /** A GPU of a node, as HAMi registered it. */
  record Gpu(String node, int index, String uuid, String model) {}

  List<Gpu> gpus() {
    List<Gpu> gpus = new ArrayList<>();
    for (Node node : cluster.nodes()) {
      Map<String, String> annotations = node.getMetadata().getAnnotations();
      String register = annotations == null ? null : annotations.get(Annotations.HAMI_NODE_REGISTER);
      if (register == null || register.isBlank()) {
        continue;
      }
      try {
        for (JsonNode d : json.readTree(register)) {
          String type = d.path("type").asText("");
          gpus.add(new Gpu(node.getMetadata().getName(), d.path("index").asInt(), d.path("id").asText(),
              type.startsWith("NVIDIA-") ? type.substring("NVIDIA-".length()) : type));
        }
      } catch (IOException e) {
        // not the simulator's own encoding: a node a test wrote by hand; it has no exporter
      }
    }
    return gpus;
  }

  /** The DCGM exporter's {@code /metrics}, for every GPU of every answering node. */
  public String dcgm() {
    StringBuilder out = new StringBuilder();
    List<Gpu> gpus = gpus().stream().filter(g -> !dropped.test(g.node())).toList();
    out.append("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n");
    for (Gpu g : gpus) {
      out.append("DCGM_FI_DEV_GPU_UTIL").append(dcgmLabels(g, "")).append(' ').append(Math.round(get(g.uuid()).util()))
          .append('\n');
    }
    out.append("# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
        + "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n");
    for (Gpu g : gpus) {
      int xid = get(g.uuid()).xid();
      out.append("DCGM_FI_DEV_XID_ERRORS").append(dcgmLabels(g, ",err_code=\"" + xid + "\"")).append(' ').append(xid)
          .append('\n');
    }
    return out.toString();
  }

  private String dcgmLabels(Gpu g, String extra) {
    return "{gpu=\"" + g.index() + "\",UUID=\"" + g.uuid() + "\",pci_bus_id=\"00000000:"
        + String.format(Locale.ROOT, "%02X", 0x10 + g.index()) + ":00.0\",device=\"nvidia" + g.index()
        + "\",modelName=\"" + escape(g.model()) + "\",Hostname=\"" + g.node() + "\"" + extra + "}";
  }

  /**
   * HAMi's vGPU monitor {@code /metrics}: per running pod that names its GPUs ({@code nvidia.com/use-gpuuuid})
   * and per container, each device's utilization ratio (0 to 1) and the seconds since it last ran a kernel.
   */
  public String hami() {
    Map<String, Gpu> gpus = new HashMap<>();
    gpus().forEach(g -> gpus.put(g.uuid(), g));
    StringBuilder util = new StringBuilder(
        "# HELP hami_container_device_utilization_ratio Container device utilization ratio\n"
            + "# TYPE hami_container_device_utilization_ratio gauge\n");
    StringBuilder kernel = new StringBuilder(
        "# HELP hami_container_last_kernel_elapsed_seconds Seconds since the container last launched a kernel\n"
            + "# TYPE hami_container_last_kernel_elapsed_seconds gauge\n");
    Instant now = clock.instant();
    for (Pod pod : cluster.pods()) {
      Map<String, String> annotations = pod.getMetadata().getAnnotations();
      String uuids = annotations == null ? null : annotations.get(Annotations.HAMI_USE_GPU_UUID);
      if (uuids == null || pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())
          || pod.getSpec().getNodeName() == null || dropped.test(pod.getSpec().getNodeName())) {
        continue;
      }
      int vdevice = 0;
      for (String uuid : uuids.split(",")) {
        Gpu g = gpus.get(uuid.trim());
        if (g == null) {
          continue;
        }
        Values v = get(g.uuid());
        for (var container : pod.getSpec().getContainers()) {
          String labels = "{namespace=\"" + pod.getMetadata().getNamespace() + "\",pod=\"" + pod.getMetadata().getName()
              + "\",container=\"" + container.getName() + "\",vdevice_index=\"" + vdevice + "\",device_uuid=\""
              + g.uuid() + "\"}";
          util.append("hami_container_device_utilization_ratio").append(labels).append(' ')
              .append(v.util() / 100.0).append('\n');
          kernel.append("hami_container_last_kernel_elapsed_seconds").append(labels).append(' ')
              .append(Math.max(0, Duration.between(v.lastKernel(), now).toSeconds())).append('\n');
        }
        vdevice++;
      }
    }
    return util.append(kernel).toString();
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
