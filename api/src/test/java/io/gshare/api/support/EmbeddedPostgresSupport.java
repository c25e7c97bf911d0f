package io.gshare.api.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One real PostgreSQL server per test JVM (the zonky binaries), with a fresh database per caller so
 * tests never see each other's rows.
 */
public final class EmbeddedPostgresSupport {

  private static EmbeddedPostgres server;
  private static final AtomicInteger databases = new AtomicInteger();

  private EmbeddedPostgresSupport() {}

  public static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        server = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
      } catch (IOException e) {
        throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
      }
      // Stopped after the JVM's Spring contexts have closed, not beside them: a scheduled task caught without its
      // database held the context's close, and the fork's exit, for 30 s (ShutdownOrder). Hence no hook of zonky's
      // own, which would stop it at once beside Spring's.
      ShutdownOrder.afterSpringContexts(() -> {
        try {
          server.close();
        } catch (IOException ignored) {
          // the JVM is going away
        }
      });
    }
    return server;
  }

  /** Creates an empty database and returns its JDBC URL. */
  public static String newDatabase() {
    String name = "gshare_test_" + databases.incrementAndGet();
    try (Connection c = server().getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      s.execute("create database " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create database " + name, e);
    }
    return server().getJdbcUrl("postgres", name);
  }

  public static DataSource dataSource(String jdbcUrl) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl);
    ds.setUser("postgres");
    return ds;
  }
}
