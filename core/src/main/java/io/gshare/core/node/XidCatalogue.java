package io.gshare.core.node;

import java.util.Map;
import java.util.Optional;

/**
 * The NVIDIA Xid codes gShare acts on, in one place (NVIDIA's Xid catalogue names them; docs/operator/monitoring.md
 * lists them). A fatal code on a card cordons that card and pauses the sessions on it; a node-level code drains the
 * whole node (its sessions paused). Every other code is left to the operator's own alerting.
 */
public final class XidCatalogue {

  /** What a fatal Xid takes out of placement. */
  public enum Reach { CARD, NODE }

  /** A fatal Xid: its code, what it means, and what it takes out. */
  public record Fatal(int code, String meaning, Reach reach) {}

  private static final Map<Integer, Fatal> FATAL = Map.ofEntries(
      fatal(48, "double-bit ECC error", Reach.CARD),
      fatal(62, "internal micro-controller halt", Reach.CARD),
      fatal(63, "ECC page retirement or row remapping recorded", Reach.CARD),
      fatal(64, "ECC page retirement or row remapping failed", Reach.CARD),
      fatal(74, "NVLink error", Reach.CARD),
      fatal(79, "GPU has fallen off the bus", Reach.NODE),
      fatal(92, "high single-bit ECC error rate", Reach.CARD),
      fatal(94, "contained ECC error", Reach.CARD),
      fatal(95, "uncontained ECC error", Reach.CARD),
      fatal(119, "GSP RPC timeout", Reach.CARD),
      fatal(120, "GSP error", Reach.CARD));

  private XidCatalogue() {}

  private static Map.Entry<Integer, Fatal> fatal(int code, String meaning, Reach reach) {
    return Map.entry(code, new Fatal(code, meaning, reach));
  }

  /** The fatal Xid of this code, if it is one gShare acts on. */
  public static Optional<Fatal> fatal(int code) {
    return Optional.ofNullable(FATAL.get(code));
  }
}
