package io.gshare.workflows.session;

import java.util.List;

/**
 * @param charged minute entries booked by this sweep
 * @param exhausted sessions whose balance cannot cover their next minute
 */
public record MeteringResult(int charged, List<String> exhausted) {

  public MeteringResult {
    exhausted = exhausted == null ? List.of() : List.copyOf(exhausted);
  }
}
