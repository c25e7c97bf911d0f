package io.gshare.activities.cluster.model;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.session.GpuPlacement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pins a session's pod to the node and GPUs the control plane chose, in HAMi's terms: the resource
 * counts, slice memory and cores, the GPU-uuid selection annotation, HAMi's scheduler and
 * RuntimeClass {@code nvidia}. Pure functions, no client.
 */
public final class HamiPlacement {

  public static final String RUNTIME_CLASS = "nvidia";
  public static final String SCHEDULER = "hami-scheduler";

  private HamiPlacement() {}

  /** The GPU container's limits: nvidia.com/gpu, and for a slice nvidia.com/gpumem and nvidia.com/gpucores. */
  public static ResourceRequirements resources(GpuPlacement placement) {
    Map<String, Quantity> limits = new LinkedHashMap<>();
    limits.put("nvidia.com/gpu", new Quantity(String.valueOf(placement.gpuUuids().size())));
    if ("fractional".equals(placement.mode())) {
      limits.put("nvidia.com/gpumem", new Quantity(String.valueOf(placement.gpumemMib())));
      limits.put("nvidia.com/gpucores", new Quantity(String.valueOf(placement.gpucoresPercent())));
    } else {
      // 100% of the cores: HAMi gives the card to this container alone.
      limits.put("nvidia.com/gpucores", new Quantity("100"));
    }
    return new ResourceRequirementsBuilder().withLimits(limits).build();
  }

  /** Pod annotations: HAMi may only use the chosen cards. */
  public static Map<String, String> annotations(GpuPlacement placement) {
    return Map.of(Annotations.HAMI_USE_GPU_UUID, String.join(",", placement.gpuUuids()));
  }

  /** Applies node pinning, scheduler and runtime class to a pod spec. */
  public static PodSpec pin(PodSpec spec, GpuPlacement placement) {
    spec.setRuntimeClassName(RUNTIME_CLASS);
    spec.setSchedulerName(SCHEDULER);
    Map<String, String> selector = new LinkedHashMap<>(spec.getNodeSelector() == null ? Map.of() : spec.getNodeSelector());
    selector.put(LabelKeys.HOSTNAME, placement.hostname());
    spec.setNodeSelector(selector);
    return spec;
  }
}
