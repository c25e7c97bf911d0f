package io.gshare.core.placement;

import io.gshare.core.catalogue.OfferingRepository.Offering;
import io.gshare.workflows.session.GpuPlacement;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The choice among candidate GPUs, with no I/O: whole GPUs all on one node, or one slice of one GPU,
 * by {@link Packing}. Admission and the allocation rows are {@link PlacementService}'s.
 */
public final class PlacementStrategy {

  private PlacementStrategy() {}

  /** Where the offering fits among {@code candidates}, or empty when nothing fits. */
  public static Optional<GpuPlacement> choose(List<GpuCandidate> candidates, Offering offering, Packing packing) {
    return "exclusive".equals(offering.mode())
        ? pickWhole(candidates, offering, packing)
        : pickSlice(candidates, offering, packing);
  }

  /** Binpack takes the node with the fewest free GPUs that still fit; spread the most. */
  private static Optional<GpuPlacement> pickWhole(List<GpuCandidate> candidates, Offering offering, Packing packing) {
    int count = offering.gpuCount();
    Map<String, List<GpuCandidate>> freeByNode = candidates.stream().filter(GpuCandidate::free)
        .collect(Collectors.groupingBy(GpuCandidate::nodeId, LinkedHashMap::new, Collectors.toList()));
    Comparator<Map.Entry<String, List<GpuCandidate>>> byFree = Comparator.comparingInt(e -> e.getValue().size());
    if (packing == Packing.SPREAD) {
      byFree = byFree.reversed();
    }
    return freeByNode.entrySet().stream()
        .filter(e -> e.getValue().size() >= count)
        .min(byFree.thenComparing(e -> e.getValue().get(0).hostname()))
        .map(e -> {
          List<GpuCandidate> gpus = e.getValue().subList(0, count);
          GpuCandidate first = gpus.get(0);
          return new GpuPlacement(first.clusterId(), first.nodeId(), first.hostname(), "exclusive", offering.gpuModel(),
              gpus.stream().map(GpuCandidate::uuid).toList(), null, null, first.lossless());
        });
  }

  /** Binpack takes the fullest GPU that still fits, so whole GPUs stay free; spread the emptiest. */
  private static Optional<GpuPlacement> pickSlice(List<GpuCandidate> candidates, Offering offering, Packing packing) {
    Comparator<GpuCandidate> byUse = Comparator.comparingLong(GpuCandidate::usedMem).thenComparingInt(GpuCandidate::usedCount);
    Comparator<GpuCandidate> order = packing == Packing.SPREAD ? byUse : byUse.reversed();
    return candidates.stream()
        .filter(c -> c.fitsSlice(offering.gpumemMib(), offering.gpucoresPercent()))
        .min(order.thenComparing(GpuCandidate::hostname).thenComparingInt(GpuCandidate::index))
        .map(c -> new GpuPlacement(c.clusterId(), c.nodeId(), c.hostname(), "fractional", offering.gpuModel(),
            List.of(c.uuid()), offering.gpumemMib(), offering.gpucoresPercent(), c.lossless()));
  }
}
