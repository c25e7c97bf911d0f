package io.gshare.dev;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real PostgreSQL server from the zonky binaries. With a data directory, its data survives a
 * restart of the dev runtime; the api migrates the schema itself.
 */
final class EmbeddedDatabase implements AutoCloseable {

  static final String DATABASE = "gshare";

  private final EmbeddedPostgres postgres;

  EmbeddedDatabase(Path dataDir, int port) {
    try {
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
          .setDataDirectory(dataDir)
          .setCleanDataDirectory(false)
          .setServerConfig("listen_addresses", "127.0.0.1");
      if (port > 0) {
        builder.setPort(port);
      }
      postgres = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL in " + dataDir
          + " (port " + port + " taken, or a server from an earlier run still holds the directory?)", e);
    }
    createDatabaseIfMissing();
  }

  String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", DATABASE);
  }

  int port() {
    return postgres.getPort();
  }

  private void createDatabaseIfMissing() {
    try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("select 1 from pg_database where datname = '" + DATABASE + "'")) {
        if (!rs.next()) {
          s.execute("create database " + DATABASE);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not create the " + DATABASE + " database", e);
    }
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
