package io.gshare.sim.kube;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The faults a {@link FaultProxy} answers, in the order they were injected: the fault suite's stand-in for an
 * overloaded or flaky control plane. Each answers the first request it matches and is then spent.
 */
public final class ApiFaultQueue {

  private final List<ApiFault> pending = new ArrayList<>();
  private final List<ApiFault> answered = new ArrayList<>();

  /** Queues faults; each answers the next request it matches. */
  public synchronized void inject(List<ApiFault> faults) {
    pending.addAll(faults);
  }

  public void inject(ApiFault... faults) {
    inject(List.of(faults));
  }

  /** The faults not answered yet. */
  public synchronized List<ApiFault> pending() {
    return List.copyOf(pending);
  }

  /** The faults answered so far, in order. */
  public synchronized List<ApiFault> answered() {
    return List.copyOf(answered);
  }

  /** Drops what is still pending. */
  public synchronized void clear() {
    pending.clear();
  }

  /** The first pending fault matching the request, now spent; null when none matches. */
  synchronized ApiFault take(String method, String path) {
    for (Iterator<ApiFault> it = pending.iterator(); it.hasNext(); ) {
      ApiFault fault = it.next();
      if (fault.matches(method, path)) {
        it.remove();
        answered.add(fault);
        return fault;
      }
    }
    return null;
  }
}
