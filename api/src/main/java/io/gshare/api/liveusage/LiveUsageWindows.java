package io.gshare.api.liveusage;

import io.gshare.contract.internal.LiveUsage;
import io.gshare.core.session.live.LiveUsageChannel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import org.springframework.stereotype.Component;

/**
 * This replica's view of the live usage: the latest window of samples per session (what a new viewer sees first)
 * and who watches each session. Fed by {@link LiveUsageChannel} with what agents posted to any replica, so a
 * viewer on any replica sees samples that reached another.
 */
@Component
public class LiveUsageWindows implements LiveUsageChannel.LiveUsageSink {

  /** Two minutes of one-second samples: the chart's width. */
  static final int WINDOW = 120;
  /** A session without samples for this long is forgotten (it ended, paused, or its node's agent stopped). */
  static final Duration FORGET_AFTER = Duration.ofMinutes(5);

  private record Window(Deque<LiveUsage.SessionSample> samples, Instant lastAt) {}

  private final Map<String, Window> windows = new ConcurrentHashMap<>();
  private final Map<String, Set<Consumer<LiveUsage.SessionSample>>> viewers = new ConcurrentHashMap<>();
  private final Clock clock;

  LiveUsageWindows() {
    this(Clock.systemUTC());
  }

  LiveUsageWindows(Clock clock) {
    this.clock = clock;
  }

  /** Adds samples in order; a sample not newer than the window's last (a replayed or reordered post) is dropped. */
  @Override
  public void received(List<LiveUsage.SessionSample> samples) {
    Instant now = clock.instant();
    for (LiveUsage.SessionSample sample : samples) {
      boolean[] added = {false};
      windows.compute(sample.sessionId(), (id, window) -> {
        Window w = window == null ? new Window(new ArrayDeque<>(), now) : window;
        LiveUsage.SessionSample last = w.samples().peekLast();
        if (last != null && !sample.sampledAt().isAfter(last.sampledAt())) {
          return w;
        }
        w.samples().addLast(sample);
        while (w.samples().size() > WINDOW) {
          w.samples().removeFirst();
        }
        added[0] = true;
        return new Window(w.samples(), now);
      });
      if (added[0]) {
        viewers.getOrDefault(sample.sessionId(), Set.of()).forEach(v -> v.accept(sample));
      }
    }
    windows.entrySet().removeIf(e -> e.getValue().lastAt().isBefore(now.minus(FORGET_AFTER))
        && !viewers.containsKey(e.getKey()));
  }

  /** The session's latest window, oldest first. */
  List<LiveUsage.SessionSample> window(String sessionId) {
    List<List<LiveUsage.SessionSample>> copy = new ArrayList<>(1);
    // Inside the map's per-key lock, as add mutates the window there.
    windows.computeIfPresent(sessionId, (id, w) -> {
      copy.add(List.copyOf(w.samples()));
      return w;
    });
    return copy.isEmpty() ? List.of() : copy.get(0);
  }

  /** Watches a session's new samples until the returned handle is closed. */
  AutoCloseable watch(String sessionId, Consumer<LiveUsage.SessionSample> viewer) {
    viewers.computeIfAbsent(sessionId, id -> new CopyOnWriteArraySet<>()).add(viewer);
    return () -> viewers.computeIfPresent(sessionId, (id, set) -> {
      set.remove(viewer);
      return set.isEmpty() ? null : set;
    });
  }

  int viewerCount() {
    return viewers.values().stream().mapToInt(Set::size).sum();
  }
}
