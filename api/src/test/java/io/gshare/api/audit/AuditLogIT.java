package io.gshare.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import io.gshare.core.audit.AuditLog;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** access.denied is deduplicated per minute per (actor, action, object), and readable by admins. */
class AuditLogIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;

  private int rows(String actor) {
    return jdbc.sql("select count(*) from audit_events where actor = :a").param("a", actor).query(Integer.class).single();
  }

  @Test
  void repeatsWithinAMinuteCollapseIntoOneCountedEvent() {
    String actor = "user:" + NewTestIds.next("usr");
    AuditLog sameMinute = new AuditLog(jdbc, Clock.fixed(Instant.parse("2026-12-02T10:15:20Z"), ZoneOffset.UTC));
    sameMinute.denied(actor, "session", "ses_1", "not the owner");
    sameMinute.denied(actor, "session", "ses_1", "not the owner");
    new AuditLog(jdbc, Clock.fixed(Instant.parse("2026-12-02T10:15:59Z"), ZoneOffset.UTC))
        .denied(actor, "session", "ses_1", "not the owner");

    assertThat(rows(actor)).isEqualTo(1);
    assertThat(jdbc.sql("select occurrences from audit_events where actor = :a").param("a", actor)
        .query(Integer.class).single()).isEqualTo(3);

    new AuditLog(jdbc, Clock.fixed(Instant.parse("2026-12-02T10:16:00Z"), ZoneOffset.UTC))
        .denied(actor, "session", "ses_1", "not the owner");
    sameMinute.denied(actor, "session", "ses_2", "not the owner");
    assertThat(rows(actor)).isEqualTo(3);
  }

  @Test
  void adminsReadTheLogWithFilters() throws Exception {
    String stranger = newUser("user");
    String token = tokenFor(stranger);
    get("/api/v1/users", token);
    get("/api/v1/users", token);

    JsonNode page = json.readTree(get("/api/v1/audit?action=access.denied&actor=user:" + stranger, adminToken()).text());
    assertThat(page.get("items")).hasSize(1);
    JsonNode event = page.at("/items/0");
    assertThat(event.get("occurrences").asInt()).isEqualTo(2);
    assertThat(event.get("object_kind").asText()).isEqualTo("user");
    assertThat(event.get("reason").asText()).isEqualTo("requires the admin role");

    assertThat(get("/api/v1/audit?since=yesterday", adminToken()).status()).isEqualTo(422);
  }
}
