package io.gshare.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.core.catalogue.OfferingRepository.Offering;
import io.gshare.workflows.session.GpuPlacement;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** Binpack and spread over candidate GPUs, without Postgres. */
class PlacementStrategyTest {

  private static final Offering TWO_WHOLE = new Offering("off_w", "two", "H100", "exclusive", 2, null, null,
      BigDecimal.ONE, true, true);
  private static final Offering SLICE = new Offering("off_s", "slice", "A100", "fractional", null, 10240, 25,
      BigDecimal.ONE, true, true);

  /** A node with {@code total} cards of which the first {@code busy} are taken whole. */
  private static List<GpuCandidate> wholeNode(String host, int total, int busy) {
    List<GpuCandidate> gpus = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      boolean taken = i < busy;
      gpus.add(new GpuCandidate(host + "-gpu" + i, i, "node-" + host, host, "clu_a", null, false, 81559, 100, 1,
          taken ? 1 : 0, taken ? 1 : 0, 0, 0));
    }
    return gpus;
  }

  private static GpuCandidate card(String uuid, String host, int index, int usedCount, long usedMem, int usedCores) {
    return new GpuCandidate(uuid, index, "node-" + host, host, "clu_a", null, false, 40960, 100, 4, usedCount, 0,
        usedMem, usedCores);
  }

  @Test
  void wholeGpusComeFromOneNodeBinpackTakingTheFullestThatFitsAndSpreadTheEmptiest() {
    List<GpuCandidate> all = new ArrayList<>(wholeNode("a", 4, 1));
    all.addAll(wholeNode("b", 4, 2));
    all.addAll(wholeNode("c", 4, 3)); // one free: does not fit two

    GpuPlacement binpack = PlacementStrategy.choose(all, TWO_WHOLE, Packing.BINPACK).orElseThrow();
    assertThat(binpack.hostname()).isEqualTo("b");
    assertThat(binpack.gpuUuids()).containsExactly("b-gpu2", "b-gpu3");
    assertThat(binpack.gpumemMib()).isNull();

    GpuPlacement spread = PlacementStrategy.choose(all, TWO_WHOLE, Packing.SPREAD).orElseThrow();
    assertThat(spread.hostname()).isEqualTo("a");
    assertThat(spread.gpuUuids()).hasSize(2).allMatch(u -> u.startsWith("a-"));
  }

  @Test
  void aSliceGoesToTheFullestCardThatStillFitsUnderBinpackAndTheEmptiestUnderSpread() {
    List<GpuCandidate> cards = List.of(
        card("empty", "x", 0, 0, 0, 0),
        card("half", "x", 1, 2, 20480, 50),
        card("full", "x", 2, 3, 35000, 75)); // 10240 more MiB would not fit

    assertThat(PlacementStrategy.choose(cards, SLICE, Packing.BINPACK).orElseThrow().gpuUuids()).containsExactly("half");
    GpuPlacement spread = PlacementStrategy.choose(cards, SLICE, Packing.SPREAD).orElseThrow();
    assertThat(spread.gpuUuids()).containsExactly("empty");
    assertThat(spread.gpumemMib()).isEqualTo(10240);
    assertThat(spread.gpucoresPercent()).isEqualTo(25);
  }

  @Test
  void nothingFitsNothingIsChosen() {
    assertThat(PlacementStrategy.choose(wholeNode("a", 2, 1), TWO_WHOLE, Packing.BINPACK)).isEmpty();
    assertThat(PlacementStrategy.choose(List.of(card("full", "x", 0, 4, 0, 0)), SLICE, Packing.BINPACK)).isEmpty();
    // A card taken whole takes no slice, however much memory it shows free.
    GpuCandidate wholeTaken = new GpuCandidate("w", 0, "n", "x", "clu_a", null, false, 40960, 100, 4, 1, 1, 0, 0);
    assertThat(PlacementStrategy.choose(List.of(wholeTaken), SLICE, Packing.SPREAD)).isEmpty();
  }

  @Test
  void packingReadsItsWireNamesAndRefusesOthers() {
    assertThat(Packing.fromWire("binpack")).isEqualTo(Packing.BINPACK);
    assertThat(Packing.fromWire("spread")).isEqualTo(Packing.SPREAD);
    Assertions.assertThatThrownBy(() -> Packing.fromWire("random"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
