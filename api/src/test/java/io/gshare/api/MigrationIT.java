package io.gshare.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gshare.api.support.EmbeddedPostgresSupport;
import java.math.BigDecimal;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;

/** The schema on a real PostgreSQL: migrations apply, and the constraints carry the invariants. */
class MigrationIT {

  private static DataSource dataSource;
  private static Flyway flyway;
  private JdbcTemplate db;

  @BeforeAll
  static void migrate() {
    dataSource = EmbeddedPostgresSupport.dataSource(EmbeddedPostgresSupport.newDatabase());
    flyway = Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").cleanDisabled(false).load();
    flyway.migrate();
  }

  @BeforeEach
  void cleanSlate() {
    flyway.clean();
    flyway.migrate();
    db = new JdbcTemplate(dataSource);
    db.update("insert into users (id, email, role) values ('usr_a', 'a@example.com', 'user')");
    db.update("insert into credit_accounts (id, user_id) values ('acc_a', 'usr_a')");
    db.update("insert into clusters (id, name) values ('clu_1', 'lab-c1')");
    db.update("insert into nodes (id, cluster_id, hostname, gpu_mode) values ('nod_1', 'clu_1', 'gpu-1', 'exclusive')");
    db.update("insert into gpu_devices (uuid, node_id, device_index, model, memory_mib) "
        + "values ('GPU-1', 'nod_1', 0, 'NVIDIA H100 80GB HBM3', 81559)");
  }

  @Test
  void migratesToTheLatestVersionWithNothingPending() {
    var all = flyway.info().all();
    assertThat(all.length).isGreaterThanOrEqualTo(3);
    assertThat(flyway.info().current().getVersion()).isEqualTo(all[all.length - 1].getVersion());
    assertThat(flyway.info().pending()).isEmpty();
  }

  @Test
  void aHostnameIsUniqueWithinAClusterOnly() {
    assertThatThrownBy(() -> db.update(
        "insert into nodes (id, cluster_id, hostname) values ('nod_2', 'clu_1', 'gpu-1')"))
        .isInstanceOf(DataIntegrityViolationException.class);
    db.update("insert into clusters (id, name) values ('clu_2', 'lab-c2')");
    db.update("insert into nodes (id, cluster_id, hostname) values ('nod_2', 'clu_2', 'gpu-1')");
  }

  @Test
  void aGpuUuidExistsOnce() {
    db.update("insert into nodes (id, cluster_id, hostname) values ('nod_2', 'clu_1', 'gpu-2')");
    assertThatThrownBy(() -> db.update("insert into gpu_devices (uuid, node_id, device_index, model, memory_mib) "
        + "values ('GPU-1', 'nod_2', 0, 'NVIDIA H100 80GB HBM3', 81559)"))
        .isInstanceOf(DataIntegrityViolationException.class);
  }

  @Test
  void aLedgerIdempotencyKeyBooksOnceAndTheBalanceFollowsTheLedger() {
    String grant = "insert into credit_ledger (account_id, amount, kind, idempotency_key) "
        + "values ('acc_a', 100, 'grant', 'grant:1') on conflict (idempotency_key) do nothing";
    assertThat(db.update(grant)).isEqualTo(1);
    assertThat(db.update(grant)).isZero();
    db.update("insert into credit_ledger (account_id, amount, kind, idempotency_key, session_id, bucket_start) "
        + "values ('acc_a', -2.5, 'charge', 'charge:ses_1:2026-12-02T10:00Z', 'ses_1', '2026-12-02T10:00Z')");

    assertThat(db.queryForObject("select count(*) from credit_ledger", Integer.class)).isEqualTo(2);
    assertThat(db.queryForObject("select balance from credit_accounts where id = 'acc_a'", BigDecimal.class))
        .isEqualByComparingTo("97.5");
    assertThat(db.queryForObject("select sum(amount) from credit_ledger where account_id = 'acc_a'", BigDecimal.class))
        .isEqualByComparingTo("97.5");
    assertThatThrownBy(() -> db.update("insert into credit_ledger (account_id, amount, kind, idempotency_key) "
        + "values ('acc_a', 5, 'grant', 'grant:1')")).isInstanceOf(DataIntegrityViolationException.class);
  }

  @Test
  void theLedgerIsAppendOnlyAndBalancesMoveOnlyThroughIt() {
    db.update("insert into credit_ledger (account_id, amount, kind, idempotency_key) values ('acc_a', 10, 'grant', 'g')");
    assertThatThrownBy(() -> db.update("update credit_ledger set amount = 1000")).isInstanceOf(DataAccessException.class)
        .hasMessageContaining("append-only");
    assertThatThrownBy(() -> db.update("delete from credit_ledger")).isInstanceOf(DataAccessException.class)
        .hasMessageContaining("append-only");
    assertThatThrownBy(() -> db.update("update credit_accounts set balance = 1000000 where id = 'acc_a'"))
        .isInstanceOf(DataAccessException.class).hasMessageContaining("only through credit_ledger");
    assertThat(db.queryForObject("select balance from credit_accounts where id = 'acc_a'", BigDecimal.class))
        .isEqualByComparingTo("10");
  }

  @Test
  void aChargeMustNameItsSessionAndMinuteBucket() {
    assertThatThrownBy(() -> db.update("insert into credit_ledger (account_id, amount, kind, idempotency_key) "
        + "values ('acc_a', -1, 'charge', 'c1')")).isInstanceOf(DataIntegrityViolationException.class);
  }

  @Test
  void anAllocationKeepsItsGpuUuidAndSessionsKeepTheirHistoryWhenHardwareGoes() {
    db.update("insert into sessions (id, user_id, state, cluster_id, cluster_name, node_id, node_hostname, gpu_model, mode, "
        + "price_per_hour, image_reference, workflow_id, ended_at) values ('ses_1', 'usr_a', 'terminated', 'clu_1', 'lab-c1', "
        + "'nod_1', 'gpu-1', 'NVIDIA H100 80GB HBM3', 'exclusive', 4, 'jupyter/base-notebook', 'session-ses_1', now())");
    db.update("insert into allocations (id, session_id, node_id, gpu_uuid, released_at) "
        + "values ('alc_1', 'ses_1', 'nod_1', 'GPU-1', now())");

    db.update("delete from nodes where id = 'nod_1'");
    assertThat(db.queryForObject("select count(*) from gpu_devices", Integer.class)).isZero();
    assertThat(db.queryForMap("select gpu_uuid, node_id from allocations where id = 'alc_1'"))
        .containsEntry("gpu_uuid", "GPU-1").containsEntry("node_id", null);

    db.update("delete from clusters where id = 'clu_1'");
    assertThat(db.queryForMap("select cluster_id, cluster_name, node_hostname, state from sessions where id = 'ses_1'"))
        .containsEntry("cluster_id", null)
        .containsEntry("cluster_name", "lab-c1")
        .containsEntry("node_hostname", "gpu-1")
        .containsEntry("state", "terminated");
  }

  @Test
  void oneDefaultPolicyAndOneOpenBillingWindowPerSession() {
    db.update("insert into policies (id) values ('pol_default')");
    assertThatThrownBy(() -> db.update("insert into policies (id) values ('pol_other')"))
        .isInstanceOf(DataIntegrityViolationException.class);

    db.update("insert into sessions (id, user_id, state, gpu_model, mode, price_per_hour, image_reference, workflow_id) "
        + "values ('ses_2', 'usr_a', 'running', 'NVIDIA H100 80GB HBM3', 'exclusive', 4, 'img', 'session-ses_2')");
    db.update("insert into billing_windows (id, session_id, account_id, price_per_hour, opened_at, charged_through) "
        + "values ('bw_1', 'ses_2', 'acc_a', 4, now(), now())");
    assertThatThrownBy(() -> db.update("insert into billing_windows (id, session_id, account_id, price_per_hour, opened_at, "
        + "charged_through) values ('bw_2', 'ses_2', 'acc_a', 4, now(), now())"))
        .isInstanceOf(DataIntegrityViolationException.class);
  }

  @Test
  void offeringsAreEitherWholeGpusOrASlice() {
    db.update("insert into offerings (id, name, gpu_model, mode, gpu_count, price_per_hour) "
        + "values ('off_1', 'h100-x1', 'NVIDIA H100 80GB HBM3', 'exclusive', 1, 4)");
    db.update("insert into offerings (id, name, gpu_model, mode, gpumem_mib, gpucores_percent, price_per_hour) "
        + "values ('off_2', 'a100-10g', 'NVIDIA A100-SXM4-40GB', 'fractional', 10240, 25, 1)");
    assertThatThrownBy(() -> db.update("insert into offerings (id, name, gpu_model, mode, gpu_count, gpumem_mib, price_per_hour) "
        + "values ('off_3', 'bad', 'X', 'exclusive', 1, 1024, 1)")).isInstanceOf(DataIntegrityViolationException.class);
  }

  @Test
  void idsThatWouldBreakQueueNamesAndLabelsAreRefused() {
    assertThatThrownBy(() -> db.update("insert into clusters (id, name) values ('Clu 1', 'x')"))
        .isInstanceOf(DataAccessException.class);
  }
}
