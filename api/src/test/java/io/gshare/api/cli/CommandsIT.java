package io.gshare.api.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.security.TokenKind;
import io.gshare.api.support.ApiIntegrationTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The commands operators run inside the api container. */
class CommandsIT extends ApiIntegrationTest {

  @Test
  void signInternalJwtPrintsOnlyAVerifiableOperatorToken() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = InternalJwtCommand.run(new String[] {"sign-internal-jwt", "operator:" + SIM_CLUSTER_ID, "--ttl", "604800"},
        Map.of("GSHARE_SECURITY_KEY_DIR", keyDir().toString()), new PrintStream(out), new PrintStream(err));

    assertThat(code).isZero();
    String token = out.toString().trim();
    assertThat(token.split("\\.")).hasSize(3);
    var verified = tokens.verify(TokenKind.INTERNAL, token);
    assertThat(verified.subject()).isEqualTo("operator:" + SIM_CLUSTER_ID);
    assertThat(Duration.between(verified.issuedAt(), verified.expiresAt()).toSeconds()).isEqualTo(604800);
    assertThat(post("/internal/v1/sessions/status", "{\"sessions\":[]}", token).status()).isEqualTo(200);
  }

  @Test
  void signInternalJwtRefusesBadInputWithAUsageLine() {
    for (String[] args : new String[][] {
        {"sign-internal-jwt"}, {"sign-internal-jwt", "clu_sim"}, {"sign-internal-jwt", "operator:Bad/Id"},
        {"sign-internal-jwt", "operator:clu_sim", "--ttl", "soon"}, {"sign-internal-jwt", "operator:clu_sim", "--ttl", "0"}}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = InternalJwtCommand.run(args, Map.of("GSHARE_SECURITY_KEY_DIR", keyDir().toString()),
          new PrintStream(out), new PrintStream(err));
      assertThat(code).as(String.join(" ", args)).isEqualTo(2);
      assertThat(out.toString()).isEmpty();
      assertThat(err.toString()).contains("usage: gshare-api sign-internal-jwt");
    }
  }

  @Test
  void signInternalJwtWithoutKeysNamesTheFileItLookedFor() throws Exception {
    java.nio.file.Path empty = java.nio.file.Files.createTempDirectory("no-keys-");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = InternalJwtCommand.run(new String[] {"sign-internal-jwt", "operator:" + SIM_CLUSTER_ID},
        Map.of("GSHARE_SECURITY_KEY_DIR", empty.toString()), new PrintStream(out), new PrintStream(err));
    assertThat(code).isEqualTo(1);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).startsWith("sign-internal-jwt: no internal-signing signing keys in "
        + empty.resolve("internal-signing.jwks.json"));
  }

  @Test
  void bootstrapReusesTheExistingSuperAdmin() {
    userService.bootstrapSuperAdmin("superadmin@example.com");
    userService.bootstrapSuperAdmin("someone-else@example.com");
    assertThat(jdbc.sql("select count(*) from users where role = 'super_admin'").query(Integer.class).single()).isEqualTo(1);
    assertThat(BootstrapSuperAdminCommand.parse(new String[] {"bootstrap-superadmin", "--email", "nope"},
        new PrintStream(new ByteArrayOutputStream()))).isNull();
  }
}
