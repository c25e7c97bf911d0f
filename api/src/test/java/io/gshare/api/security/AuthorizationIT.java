package io.gshare.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.api.support.ApiIntegrationTest;
import io.gshare.api.support.NewTestIds;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The object-level matrix for two users and an admin. */
class AuthorizationIT extends ApiIntegrationTest {

  @Autowired ObjectMapper json;
  private String alice;
  private String bob;
  private String aliceToken;
  private String bobToken;
  private String adminToken;
  private String aliceSession;
  private String aliceVolume;

  @BeforeEach
  void people() {
    alice = newUser("user");
    bob = newUser("user");
    aliceToken = tokenFor(alice);
    bobToken = tokenFor(bob);
    adminToken = tokenFor(newUser("admin"));
    aliceSession = NewTestIds.next("ses");
    jdbc.sql("""
        insert into sessions (id, user_id, state, gpu_model, mode, price_per_hour, image_reference, workflow_id)
        values (:id, :u, 'running', 'NVIDIA A100-SXM4-40GB', 'fractional', 1, 'img', :w)
        """).param("id", aliceSession).param("u", alice).param("w", "session-" + aliceSession).update();
    aliceVolume = NewTestIds.next("vol");
    jdbc.sql("insert into volumes (id, owner_id, name, size_gb) values (:id, :o, :n, 10)")
        .param("id", aliceVolume).param("o", alice).param("n", aliceVolume.replace('_', '-')).update();
  }

  @Test
  void aUserSeesTheirOwnObjectsAnotherUserGets404AnAdminSeesAll() throws Exception {
    assertThat(get("/api/v1/sessions/" + aliceSession, aliceToken).status()).isEqualTo(200);
    assertThat(get("/api/v1/sessions/" + aliceSession, bobToken).status()).isEqualTo(404);
    assertThat(get("/api/v1/sessions/" + aliceSession, adminToken).status()).isEqualTo(200);
    assertThat(get("/api/v1/volumes/" + aliceVolume, aliceToken).status()).isEqualTo(200);
    assertThat(get("/api/v1/volumes/" + aliceVolume, bobToken).status()).isEqualTo(404);
    assertThat(get("/api/v1/volumes/" + aliceVolume, adminToken).status()).isEqualTo(200);

    // Another user's object and a missing one answer alike.
    JsonNode hidden = json.readTree(get("/api/v1/sessions/" + aliceSession, bobToken).text());
    JsonNode missing = json.readTree(get("/api/v1/sessions/ses_nosuch", bobToken).text());
    assertThat(hidden.get("code").asText()).isEqualTo(missing.get("code").asText()).isEqualTo("not_found");
    assertThat(hidden.get("detail").asText().replace(aliceSession, "X"))
        .isEqualTo(missing.get("detail").asText().replace("ses_nosuch", "X"));

    assertThat(ids(get("/api/v1/sessions", bobToken).text())).doesNotContain(aliceSession);
    assertThat(ids(get("/api/v1/sessions", aliceToken).text())).contains(aliceSession);
    assertThat(ids(get("/api/v1/sessions?user_id=" + alice, adminToken).text())).containsExactly(aliceSession);
    assertThat(ids(get("/api/v1/volumes", bobToken).text())).doesNotContain(aliceVolume);
    assertThat(get("/api/v1/sessions?user_id=" + alice, bobToken).status()).isEqualTo(403);

    assertThat(jdbc.sql("select count(*) from audit_events where actor = :a and object_id = :o and outcome = 'denied'")
        .param("a", "user:" + bob).param("o", aliceSession).query(Integer.class).single()).isEqualTo(1);
  }

  @Test
  void theSessionListComesInPagesThatNeitherRepeatNorSkip() throws Exception {
    // Five more, two with alice's first session's creation time: the id orders those.
    List<String> all = new ArrayList<>(List.of(aliceSession));
    for (int i = 0; i < 5; i++) {
      String id = NewTestIds.next("ses");
      jdbc.sql("""
          insert into sessions (id, user_id, state, gpu_model, mode, price_per_hour, image_reference, workflow_id, created_at)
          values (:id, :u, 'running', 'NVIDIA A100-SXM4-40GB', 'fractional', 1, 'img', :w,
                  (select created_at from sessions where id = :first) + make_interval(secs => :offset))
          """).param("id", id).param("u", alice).param("w", "session-" + id).param("first", aliceSession)
          .param("offset", i < 2 ? 0 : i).update();
      all.add(id);
    }
    List<String> walked = new ArrayList<>();
    String next = null;
    int pages = 0;
    do {
      JsonNode page = json.readTree(get("/api/v1/sessions?limit=2" + (next == null ? "" : "&after=" + next), aliceToken).text());
      page.get("items").forEach(item -> walked.add(item.get("id").asText()));
      next = page.hasNonNull("next") ? page.get("next").asText() : null;
      pages++;
    } while (next != null);
    assertThat(walked).containsExactlyInAnyOrderElementsOf(all);
    assertThat(pages).isEqualTo(3);
    assertThat(ids(get("/api/v1/sessions?limit=6", aliceToken).text())).isEqualTo(walked);
    assertThat(get("/api/v1/sessions?after=nonsense", aliceToken).status()).isEqualTo(422);
  }

  @Test
  void adminOnlyActionsAnswer403ToUsers() {
    assertThat(get("/api/v1/users", bobToken).status()).isEqualTo(403);
    assertThat(post("/api/v1/users", "{\"email\":\"eve@example.com\"}", bobToken).status()).isEqualTo(403);
    assertThat(get("/api/v1/clusters", bobToken).status()).isEqualTo(403);
    assertThat(get("/api/v1/system", bobToken).status()).isEqualTo(403);
    assertThat(get("/api/v1/nodes", bobToken).status()).isEqualTo(403);
    assertThat(get("/api/v1/audit", bobToken).status()).isEqualTo(403);
    assertThat(post("/api/v1/users/" + alice + "/tokens", "{}", bobToken).status()).isEqualTo(403);
    // An admin is not a super admin: making admins and rotating keys need the higher role.
    assertThat(post("/api/v1/users", "{\"email\":\"root2@example.com\",\"role\":\"admin\"}", adminToken).status())
        .isEqualTo(403);
    assertThat(post("/api/v1/system/keys/internal/rotate", "{}", adminToken).status()).isEqualTo(403);
    assertThat(jdbc.sql("select count(*) from users where email in ('eve@example.com', 'root2@example.com')")
        .query(Integer.class).single()).isZero();
  }

  @Test
  void aUserManagesTheirOwnTokensAndRevocationOrDisablingTakesEffectAtOnce() throws Exception {
    JsonNode issued = json.readTree(post("/api/v1/users/" + bob + "/tokens", "{\"name\":\"laptop\",\"ttl_days\":7}", bobToken).text());
    String laptop = issued.get("token").asText();
    assertThat(get("/api/v1/users/me", laptop).status()).isEqualTo(200);
    assertThat(get("/api/v1/users/" + bob + "/tokens", bobToken).text()).contains("laptop").doesNotContain(laptop);

    assertThat(send("DELETE", "/api/v1/users/" + bob + "/tokens/" + issued.get("id").asText(), null, bobToken).status())
        .isEqualTo(204);
    assertThat(get("/api/v1/users/me", laptop).status()).isEqualTo(401);
    assertThat(get("/api/v1/users/me", bobToken).status()).isEqualTo(200);

    assertThat(send("PATCH", "/api/v1/users/" + bob, "{\"disabled\":true}", adminToken).status()).isEqualTo(200);
    assertThat(get("/api/v1/users/me", bobToken).status()).isEqualTo(401);
  }

  @Test
  void aRoleChangeAppliesToTokensAlreadyIssued() {
    String superAdmin = adminToken();
    assertThat(get("/api/v1/users", aliceToken).status()).isEqualTo(403);
    assertThat(send("PATCH", "/api/v1/users/" + alice, "{\"role\":\"admin\"}", superAdmin).status()).isEqualTo(200);
    assertThat(get("/api/v1/users", aliceToken).status()).isEqualTo(200);
  }

  @Test
  void aUserTokenIsNoOperatorTokenAndViceVersa() {
    assertThat(post("/internal/v1/sessions/status", "{\"sessions\":[]}", adminToken).status()).isEqualTo(401);
    assertThat(get("/api/v1/users/me", operatorToken(SIM_CLUSTER_ID)).status()).isEqualTo(401);
    assertThat(get("/api/v1/users/me", null).status()).isEqualTo(401);
  }

  private List<String> ids(String body) throws Exception {
    List<String> ids = new ArrayList<>();
    json.readTree(body).get("items").forEach(item -> ids.add(item.get("id").asText()));
    return ids;
  }
}
