package io.gshare.api.liveusage;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.ratelimit.RateLimit;
import io.gshare.api.ratelimit.RateLimited;
import io.gshare.api.security.Caller;
import io.gshare.contract.internal.Accepted;
import io.gshare.contract.internal.InternalPaths;
import io.gshare.contract.internal.LiveUsage;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import io.gshare.workflows.common.Ids;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The live usage chart's data: agents post each second's samples on the internal plane, and a session's owner
 * reads them as Server-Sent Events. Samples reach the owner's stream from a shared pool, never on the thread
 * that received them, so one slow browser holds up nobody else.
 */
@RestController
@Tag(name = "sessions")
class LiveUsageController implements DisposableBean, ApplicationListener<ContextClosedEvent> {

  /** A stream lives this long; the browser's EventSource then reconnects by itself. */
  static final Duration STREAM_LIFETIME = Duration.ofMinutes(30);
  /** A comment this often keeps proxies from closing a quiet stream and finds closed ones. */
  static final Duration HEARTBEAT = Duration.ofSeconds(15);
  /** Samples a slow viewer may have waiting; older ones are dropped first. */
  static final int QUEUE = LiveUsageWindows.WINDOW;

  private final LiveUsageService service;
  private final ExecutorService senders = Executors.newFixedThreadPool(2, daemon("gshare-live-usage-sender"));
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(daemon("gshare-live-usage-heartbeat"));
  private final Set<Stream> open = ConcurrentHashMap.newKeySet();

  LiveUsageController(LiveUsageService service) {
    this.service = service;
    heartbeats.scheduleAtFixedRate(() -> open.forEach(Stream::heartbeat), HEARTBEAT.toMillis(), HEARTBEAT.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  @PostMapping(InternalPaths.BASE + InternalPaths.LIVE_USAGE)
  @RateLimited(RateLimit.CLUSTER_REPORTS)
  @Operation(summary = "A node's usage agent's last second of session samples, for the live chart (not stored)",
      tags = "internal")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  Accepted live(Caller.Operator caller, @Valid @RequestBody LiveUsage usage) {
    return new Accepted(service.accept(caller, usage));
  }

  @GetMapping(path = "/api/v1/sessions/{id}/usage/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  @Operation(summary = "Your session's live usage, one sample a second from the node's usage agent, as Server-Sent"
      + " Events (event usage, id the sample's time in ms): the last two minutes first, then each new sample. Only"
      + " where the operator enabled the agent (agent.enabled); owner only")
  @ProblemResponses({ProblemCode.VALIDATION_FAILED})
  SseEmitter stream(Caller.User caller, @PathVariable String id) {
    if (!Ids.isValid(id)) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, "id is not an id");
    }
    Stream stream = new Stream(new SseEmitter(STREAM_LIFETIME.toMillis()));
    synchronized (stream) {
      // Under the stream's lock: a sample arriving now waits until the backlog is queued, then is deduplicated.
      LiveUsageService.Watch watch = service.watch(caller, id, stream::offer);
      stream.started(watch.handle());
      watch.backlog().forEach(stream::offer);
    }
    open.add(stream);
    return stream.emitter;
  }

  /**
   * Ends every open stream as the process begins to stop, before the web server's graceful shutdown waits for the
   * requests in flight: a stream never ends by itself, so it would hold a rolling restart for the whole shutdown
   * phase. The browser's EventSource reconnects, to a replica still serving.
   */
  @Override
  public void onApplicationEvent(ContextClosedEvent event) {
    open.forEach(s -> s.emitter.complete());
  }

  @Override
  public void destroy() {
    heartbeats.shutdownNow();
    senders.shutdownNow();
    open.forEach(s -> s.emitter.complete());
  }

  /** One viewer's stream: a bounded queue drained in order by one sender at a time. */
  private final class Stream {
    private final SseEmitter emitter;
    private final Deque<LiveUsage.SessionSample> queue = new ArrayDeque<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private Instant lastQueued = Instant.MIN;
    private volatile AutoCloseable handle;
    private volatile boolean closed;

    Stream(SseEmitter emitter) {
      this.emitter = emitter;
      emitter.onCompletion(this::close);
      emitter.onTimeout(this::close);
      emitter.onError(e -> close());
    }

    void started(AutoCloseable handle) {
      this.handle = handle;
    }

    synchronized void offer(LiveUsage.SessionSample sample) {
      if (closed || !sample.sampledAt().isAfter(lastQueued)) {
        return;
      }
      lastQueued = sample.sampledAt();
      queue.addLast(sample);
      while (queue.size() > QUEUE) {
        queue.removeFirst();
      }
      if (draining.compareAndSet(false, true)) {
        senders.execute(this::drain);
      }
    }

    private void drain() {
      while (true) {
        LiveUsage.SessionSample next;
        synchronized (this) {
          next = queue.pollFirst();
          if (next == null) {
            draining.set(false);
            return;
          }
        }
        try {
          emitter.send(SseEmitter.event().name("usage").id(Long.toString(next.sampledAt().toEpochMilli()))
              .data(LiveUsagePoint.of(next), MediaType.APPLICATION_JSON));
        } catch (IOException | IllegalStateException e) {
          close();
          return;
        }
      }
    }

    void heartbeat() {
      try {
        emitter.send(SseEmitter.event().comment("keep-alive"));
      } catch (IOException | IllegalStateException e) {
        close();
      }
    }

    private void close() {
      closed = true;
      open.remove(this);
      AutoCloseable h = handle;
      if (h != null) {
        try {
          h.close();
        } catch (Exception ignored) {
          // closing a watch only removes it from a map
        }
      }
    }
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
