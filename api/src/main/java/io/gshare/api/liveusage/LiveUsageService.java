package io.gshare.api.liveusage;

import io.gshare.api.security.Access;
import io.gshare.api.security.Caller;
import io.gshare.contract.internal.LiveUsage;
import io.gshare.core.error.GshareException;
import io.gshare.core.session.SessionReports;
import io.gshare.core.session.SessionRepository;
import io.gshare.core.session.live.LiveUsageChannel;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;

/**
 * The usage agents' live samples in, the owner's view of them out. An agent speaks for its cluster's sessions
 * only; a session may be seen live by its owner alone (the chart is theirs; admins have the metric queries).
 */
@Service
public class LiveUsageService {

  private final SessionReports reports;
  private final SessionRepository sessions;
  private final LiveUsageChannel channel;
  private final LiveUsageWindows windows;
  private final Access access;

  LiveUsageService(SessionReports reports, SessionRepository sessions, LiveUsageChannel channel,
      LiveUsageWindows windows, Access access) {
    this.reports = reports;
    this.sessions = sessions;
    this.channel = channel;
    this.windows = windows;
    this.access = access;
  }

  /**
   * Publishes an agent's second of samples to every replica. Sessions of another cluster are refused (403, nothing
   * published); samples of sessions that no longer exist are dropped, as an agent may sample a pod a moment after
   * its session ended.
   */
  public int accept(Caller.Operator caller, LiveUsage usage) {
    Set<String> ids = usage.samples().stream().map(LiveUsage.SessionSample::sessionId).collect(Collectors.toSet());
    Map<String, String> clusterOf = reports.clustersOf(ids);
    clusterOf.forEach((id, cluster) -> access.requireSameCluster(caller, "session", id, cluster));
    List<LiveUsage.SessionSample> known = usage.samples().stream().filter(s -> clusterOf.containsKey(s.sessionId())).toList();
    return known.isEmpty() ? 0 : channel.publish(known);
  }

  /** What a viewer of the session gets: its latest window now, then each new sample; owner only (404 to others). */
  public Watch watch(Caller.User caller, String sessionId, Consumer<LiveUsage.SessionSample> viewer) {
    SessionRepository.Session session = sessions.findById(sessionId)
        .orElseThrow(() -> GshareException.notFound("session", sessionId));
    access.requireOwner(caller, "session", sessionId, session.userId());
    AutoCloseable handle = windows.watch(sessionId, viewer);
    return new Watch(windows.window(sessionId), handle);
  }

  /** A started watch: the samples already in the window, and the handle that ends it. */
  public record Watch(List<LiveUsage.SessionSample> backlog, AutoCloseable handle) {}
}
