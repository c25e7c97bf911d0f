package io.gshare.api.support;

import org.springframework.boot.SpringApplication;

/**
 * What a test JVM started for its Spring contexts (PostgreSQL, the Temporal dev server) stops at the JVM's exit after
 * those contexts have closed. The JVM runs its shutdown hooks all at once: PostgreSQL stopped by a hook of its own
 * while Spring's hook closed the cached test context left a scheduled task (the alert delivery's tick, every 300 ms
 * here) waiting for a connection, the scheduler's stop waited for that task for its 30 s, and failsafe, 30 s after the
 * fork's {@code System.exit}, killed the fork: half a minute of the api's integration tests spent on nothing. Spring
 * Boot's shutdown handlers run in its own hook once every context has closed (and the hook is added even when no
 * context was ever started).
 */
public final class ShutdownOrder {

  private ShutdownOrder() {}

  /** Runs {@code action} at the JVM's exit, after every Spring application context of the JVM has closed. */
  public static void afterSpringContexts(Runnable action) {
    SpringApplication.getShutdownHandlers().add(action);
  }
}
