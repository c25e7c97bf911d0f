package io.gshare.clusterworker;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one kind of report to the control plane on a fixed delay, on its own daemon thread, and logs
 * a failure once per change of answer rather than every tick.
 */
final class ReportLoop implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ReportLoop.class);

  @FunctionalInterface
  interface Report {
    void send() throws Exception;
  }

  private static final int TOO_MANY_REQUESTS = 429;

  private final String what;
  private final Report report;
  private final ScheduledExecutorService ticker;
  private volatile int lastStatus;

  ReportLoop(String what, Report report) {
    this.what = what;
    this.report = report;
    this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gshare-report-" + what.replace(' ', '-'));
      t.setDaemon(true);
      return t;
    });
  }

  ReportLoop start(Duration interval) {
    ticker.scheduleWithFixedDelay(this::tickQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void tickQuietly() {
    try {
      report.send();
      if (lastStatus != 200) {
        log.info("{} reported to the control plane", what);
      }
      lastStatus = 200;
    } catch (ControlPlaneClient.Refused e) {
      if (e.status == TOO_MANY_REQUESTS) {
        // The api limits each cluster's reports; this loop's next tick sends a fresh one.
        if (lastStatus != e.status) {
          log.warn("the control plane is limiting this cluster's reports (429); the {} goes again next interval", what);
        }
      } else if (lastStatus != e.status) {
        log.error("the control plane refused the {} ({}){}", what, e.getMessage(), e.status == 401
            ? "; the operator token is invalid or expired: rotate the gshare-operator-internal-jwt Secret" : "");
      }
      lastStatus = e.status;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      if (lastStatus != -1) {
        log.warn("could not report the {}: {}", what, e.toString());
      }
      lastStatus = -1;
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
