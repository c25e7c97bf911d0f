package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.api.support.EmbeddedPostgresSupport;
import io.gshare.core.keys.SigningKeySets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two api replicas sharing their signing keys through PostgreSQL (gshare.security.key-store=database): they start on
 * one set, a rotation by either is honoured by both at once, concurrent rotations keep every key, an install that
 * kept its keys in files keeps them, and the database holds no private key in the clear.
 */
class DatabaseKeySetStoreIT {

  @TempDir Path keyDir;
  private SigningKeySets rows;
  private JdbcTemplate db;
  private DataKey dataKey;
  private final TokensTest.MutableClock clock = new TokensTest.MutableClock(Instant.parse("2026-12-07T10:00:00Z"));

  @BeforeEach
  void freshDatabase() {
    DataSource dataSource = EmbeddedPostgresSupport.dataSource(EmbeddedPostgresSupport.newDatabase());
    Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load().migrate();
    db = new JdbcTemplate(dataSource);
    rows = new SigningKeySets(JdbcClient.create(dataSource));
    dataKey = DataKey.open(keyDir, true);
  }

  private Tokens replica() {
    Map<TokenKind, SigningKeyRing> rings = new EnumMap<>(TokenKind.class);
    for (TokenKind kind : TokenKind.values()) {
      rings.put(kind, SigningKeyRing.open(new DatabaseKeySetStore(rows, dataKey, kind.keySetName(),
          keyDir.resolve(kind.keySetFile())), kind.keySetName(), Duration.ofDays(8), true, clock));
    }
    return new Tokens("gshare", rings, Duration.ofSeconds(60), clock);
  }

  @Test
  void replicasStartingTogetherShareOneSet() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Tokens>> starting = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        starting.add(pool.submit((Callable<Tokens>) this::replica));
      }
      List<String> signingKids = new ArrayList<>();
      for (Future<Tokens> replica : starting) {
        signingKids.add(replica.get().publicKeys(TokenKind.USER).getKeys().get(0).getKeyID());
      }
      assertThat(signingKids).hasSize(4).containsOnly(signingKids.get(0));
    } finally {
      pool.shutdownNow();
    }
    assertThat(db.queryForObject("select count(*) from signing_key_sets", Integer.class)).isEqualTo(2);
  }

  @Test
  void aRotationOnOneReplicaIsHonouredByTheOtherAtOnce() throws Exception {
    Tokens a = replica();
    Tokens b = replica();
    String before = b.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));

    String fresh = a.rotate(TokenKind.INTERNAL).getKeyID();
    String signedByA = a.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));

    // b has not looked at the store since it started, yet verifies a's new key: an unknown kid reloads the set
    assertThat(b.verify(TokenKind.INTERNAL, signedByA).subject()).isEqualTo("operator:clu_a");
    assertThat(a.verify(TokenKind.INTERNAL, before).subject()).isEqualTo("operator:clu_a");
    // and within its reload check it signs with the new key too, and publishes it
    clock.advance(Duration.ofSeconds(6));
    assertThat(b.publicKeys(TokenKind.INTERNAL).getKeys().get(0).getKeyID()).isEqualTo(fresh);
    assertThat(header(b.sign(TokenKind.INTERNAL, "operator:clu_b", null, Duration.ofDays(7)))).contains(fresh);
  }

  @Test
  void concurrentRotationsKeepEveryKey() throws Exception {
    Tokens a = replica();
    Tokens b = replica();
    String original = a.publicKeys(TokenKind.USER).getKeys().get(0).getKeyID();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<String> fresh = new ArrayList<>();
    try {
      Future<String> byA = pool.submit(() -> a.rotate(TokenKind.USER).getKeyID());
      Future<String> byB = pool.submit(() -> b.rotate(TokenKind.USER).getKeyID());
      fresh.add(byA.get());
      fresh.add(byB.get());
    } finally {
      pool.shutdownNow();
    }
    clock.advance(Duration.ofSeconds(6));
    List<String> published = a.publicKeys(TokenKind.USER).getKeys().stream().map(k -> k.getKeyID()).toList();
    assertThat(published).containsExactlyInAnyOrder(original, fresh.get(0), fresh.get(1));
    assertThat(db.queryForObject("select version from signing_key_sets where name = 'user-signing'", Long.class))
        .isEqualTo(3L);
  }

  @Test
  void anInstallThatKeptItsKeysInFilesKeepsThem() throws Exception {
    Path files = Files.createDirectories(keyDir.resolve("earlier"));
    Tokens earlier = new Tokens("gshare", Map.of(
        TokenKind.USER, SigningKeyRing.open(files.resolve(TokenKind.USER.keySetFile()), "user-signing",
            Duration.ofDays(8), true, clock),
        TokenKind.INTERNAL, SigningKeyRing.open(files.resolve(TokenKind.INTERNAL.keySetFile()), "internal-signing",
            Duration.ofDays(8), true, clock)), Duration.ofSeconds(60), clock);
    String issuedBefore = earlier.sign(TokenKind.INTERNAL, "operator:clu_a", null, Duration.ofDays(7));
    for (TokenKind kind : TokenKind.values()) {
      Files.copy(files.resolve(kind.keySetFile()), keyDir.resolve(kind.keySetFile()));
    }

    Tokens moved = replica();

    assertThat(moved.verify(TokenKind.INTERNAL, issuedBefore).subject()).isEqualTo("operator:clu_a");
  }

  @Test
  void theDatabaseHoldsNoKeyInTheClearAndAnotherDataKeyOpensNothing() throws Exception {
    Tokens a = replica();
    String kid = a.publicKeys(TokenKind.USER).getKeys().get(0).getKeyID();
    byte[] sealed = db.queryForObject("select sealed from signing_key_sets where name = 'user-signing'", byte[].class);
    assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain(kid).doesNotContain("\"d\"");

    Path otherDir = Files.createDirectories(keyDir.resolve("other"));
    DataKey other = DataKey.open(otherDir, true);
    assertThatThrownBy(() -> SigningKeyRing.open(new DatabaseKeySetStore(rows, other, "user-signing", null),
        "user-signing", Duration.ofDays(8), true, clock))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not open with kubeconfig.key");
  }

  private static String header(String token) {
    return new String(java.util.Base64.getUrlDecoder().decode(token.substring(0, token.indexOf('.'))),
        StandardCharsets.UTF_8);
  }
}
