package io.gshare.sim.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When a stand-in's loop should make a pass: once something it reads changed (a watch of those kinds says so), or
 * once {@link #IDLE_PASS} went by without one, for what depends on time alone (a stale HAMi node lock). A pass still
 * lists what it reads from the apiserver, so it never decides from a cache that lags its own writes.
 *
 * <p>Why: a loop that lists nodes, pods and claims every 250 ms whether or not anything moved kept an idle cluster at
 * about 40% of a core (the lists, the apiserver serving them, etcd), measured with one cluster alone; the tests run
 * several at once on two cores. The watches cost next to nothing while nothing moves, and a change is still seen at
 * the next tick.
 */
final class ChangeTrigger implements AutoCloseable {

  /** The longest a stand-in goes without a pass. */
  static final Duration IDLE_PASS = Duration.ofSeconds(2);

  private final AtomicBoolean changed = new AtomicBoolean(true);
  private final List<SharedIndexInformer<?>> informers = new CopyOnWriteArrayList<>();
  private volatile long lastPass = System.nanoTime();

  /** Also passes when an object of {@code kind} is added, changed or deleted. */
  <T extends HasMetadata> ChangeTrigger watching(Informable<T> kind) {
    informers.add(kind.inform(new ResourceEventHandler<T>() {
      @Override
      public void onAdd(T object) {
        changed.set(true);
      }

      @Override
      public void onUpdate(T before, T after) {
        changed.set(true);
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        changed.set(true);
      }
    }, 0));
    return this;
  }

  /**
   * A pass is due at the next tick: the stand-in was told something no watch sees (a fault to inject, say). Call it
   * after the change it announces, or a pass between the two clears it and the change waits for the idle pass.
   */
  void poke() {
    changed.set(true);
  }

  /**
   * Whether to pass now; true clears the change, so one arriving during the pass makes the next tick pass again.
   */
  boolean due() {
    long now = System.nanoTime();
    if (changed.getAndSet(false) || now - lastPass >= IDLE_PASS.toNanos()) {
      lastPass = now;
      return true;
    }
    return false;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    informers.clear();
  }
}
