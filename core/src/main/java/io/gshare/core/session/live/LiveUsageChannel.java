package io.gshare.core.session.live;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.contract.internal.LiveUsage;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The live usage samples agents post, passed between the api's replicas through PostgreSQL's NOTIFY on
 * {@value #CHANNEL}: the replica an agent reaches publishes, every replica (itself too) listens and hands the
 * samples to its {@link LiveUsageSink}s. PostgreSQL is the one thing all replicas share, and a notification is
 * never stored: live data needs no table and leaves no rows. A lost connection is listened again after a pause;
 * what was sent meanwhile is missed, which a live chart survives.
 */
@Component
public class LiveUsageChannel implements SmartLifecycle {

  /** Who receives the samples on this replica. */
  public interface LiveUsageSink {
    void received(List<LiveUsage.SessionSample> samples);
  }

  static final String CHANNEL = "gshare_live_usage";
  /** NOTIFY's payload must stay under 8000 bytes: samples go in chunks well below it. */
  static final int MAX_PAYLOAD_BYTES = 6000;
  private static final TypeReference<List<LiveUsage.SessionSample>> SAMPLES = new TypeReference<>() {};
  private static final Logger log = LoggerFactory.getLogger(LiveUsageChannel.class);

  private final JdbcClient jdbc;
  private final DataSource dataSource;
  private final ObjectMapper json;
  private final ObjectProvider<LiveUsageSink> sinks;
  private volatile boolean running;
  private volatile Thread thread;

  LiveUsageChannel(JdbcClient jdbc, DataSource dataSource, ObjectMapper json, ObjectProvider<LiveUsageSink> sinks) {
    this.jdbc = jdbc;
    this.dataSource = dataSource;
    this.json = json;
    this.sinks = sinks;
  }

  /** Publishes samples to every replica; returns how many were sent. */
  public int publish(List<LiveUsage.SessionSample> samples) {
    for (String payload : chunks(samples)) {
      jdbc.sql("select pg_notify(:channel, :payload)").param("channel", CHANNEL).param("payload", payload)
          .query(Object.class).list();
    }
    return samples.size();
  }

  List<String> chunks(List<LiveUsage.SessionSample> samples) {
    List<String> payloads = new ArrayList<>();
    List<String> chunk = new ArrayList<>();
    int size = 2;
    try {
      for (LiveUsage.SessionSample sample : samples) {
        String one = json.writeValueAsString(sample);
        if (!chunk.isEmpty() && size + one.length() + 1 > MAX_PAYLOAD_BYTES) {
          payloads.add("[" + String.join(",", chunk) + "]");
          chunk.clear();
          size = 2;
        }
        chunk.add(one);
        size += one.length() + 1;
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a live usage sample did not serialize", e);
    }
    if (!chunk.isEmpty()) {
      payloads.add("[" + String.join(",", chunk) + "]");
    }
    return payloads;
  }

  @Override
  public void start() {
    running = true;
    Thread t = new Thread(this::listen, "gshare-live-usage-listener");
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  private void listen() {
    long pauseMillis = 1000;
    while (running) {
      try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
        connection.setAutoCommit(true);
        statement.execute("LISTEN " + CHANNEL);
        PGConnection pg = connection.unwrap(PGConnection.class);
        pauseMillis = 1000;
        while (running) {
          PGNotification[] notifications = pg.getNotifications(500);
          for (PGNotification n : notifications == null ? new PGNotification[0] : notifications) {
            deliver(n.getParameter());
          }
        }
      } catch (Exception e) {
        if (!running) {
          return;
        }
        log.warn("live usage: listening on {} failed ({}); listening again in {} ms", CHANNEL, e.getMessage(), pauseMillis);
        try {
          Thread.sleep(pauseMillis);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
        pauseMillis = Math.min(pauseMillis * 2, 30_000);
      }
    }
  }

  private void deliver(String payload) {
    List<LiveUsage.SessionSample> samples;
    try {
      samples = json.readValue(payload, SAMPLES);
    } catch (JsonProcessingException e) {
      log.warn("dropped a live usage notification that is not a list of samples: {}", e.getOriginalMessage());
      return;
    }
    sinks.forEach(sink -> sink.received(samples));
  }

  @Override
  public void stop() {
    running = false;
    Thread t = thread;
    if (t != null) {
      try {
        t.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
