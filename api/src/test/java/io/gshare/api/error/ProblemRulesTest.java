package io.gshare.api.error;

import static io.gshare.core.error.ProblemCode.BAD_REQUEST;
import static io.gshare.core.error.ProblemCode.CONFLICT;
import static io.gshare.core.error.ProblemCode.FORBIDDEN;
import static io.gshare.core.error.ProblemCode.NOT_ACCEPTABLE;
import static io.gshare.core.error.ProblemCode.NOT_FOUND;
import static io.gshare.core.error.ProblemCode.PAYLOAD_TOO_LARGE;
import static io.gshare.core.error.ProblemCode.TEMPORAL_UNAVAILABLE;
import static io.gshare.core.error.ProblemCode.UNAUTHORIZED;
import static io.gshare.core.error.ProblemCode.UNSUPPORTED_MEDIA_TYPE;
import static io.gshare.core.error.ProblemCode.VALIDATION_FAILED;
import static org.assertj.core.api.Assertions.assertThat;

import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.SuperAdminOnly;
import io.gshare.core.error.ProblemCode;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;

/** The codes a handler's shape implies, and those it lists, for handlers made up to show each rule. */
class ProblemRulesTest {

  @RequestMapping("/api/v1/things")
  static class Things {
    @GetMapping
    Map<String, String> list() {
      return Map.of();
    }

    @GetMapping("/{id}")
    Map<String, String> get(@PathVariable String id) {
      return Map.of();
    }

    @GetMapping("/search")
    Map<String, String> search(@RequestParam String q) {
      return Map.of();
    }

    @PostMapping("/{id}/move")
    @AdminOnly
    @ProblemResponses({ProblemCode.CONFLICT, ProblemCode.TEMPORAL_UNAVAILABLE})
    Map<String, String> move(@PathVariable String id, @RequestBody Map<String, Object> body) {
      return Map.of();
    }

    @DeleteMapping("/{id}")
    void delete(@PathVariable String id) {}
  }

  @SuperAdminOnly
  static class Keys {
    @PostMapping("/api/v1/keys")
    Map<String, String> rotate() {
      return Map.of();
    }
  }

  static class Open {
    @GetMapping("/healthz")
    Map<String, String> healthz() {
      return Map.of();
    }

    @GetMapping("/internal/connect/verify/**")
    ResponseEntity<Void> verify(@RequestParam(required = false) String rd) {
      return ResponseEntity.ok().build();
    }

    @GetMapping("/auth/login")
    void login(@RequestParam(required = false) String next, HttpServletResponse response) {}
  }

  @Test
  void aTokenAndTheShapeOfTheHandler() {
    assertThat(codes(new Things(), "list")).containsExactly(UNAUTHORIZED, NOT_ACCEPTABLE);
    assertThat(codes(new Things(), "get")).containsExactly(UNAUTHORIZED, NOT_FOUND, NOT_ACCEPTABLE);
    assertThat(codes(new Things(), "search")).containsExactly(BAD_REQUEST, VALIDATION_FAILED, UNAUTHORIZED,
        NOT_ACCEPTABLE);
    assertThat(codes(new Things(), "delete")).containsExactly(UNAUTHORIZED, NOT_FOUND);
  }

  @Test
  void rolesAndListedCodes() {
    assertThat(codes(new Things(), "move")).containsExactlyInAnyOrder(BAD_REQUEST, VALIDATION_FAILED, UNAUTHORIZED,
        FORBIDDEN, NOT_FOUND, NOT_ACCEPTABLE, CONFLICT, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, TEMPORAL_UNAVAILABLE);
    assertThat(codes(new Keys(), "rotate")).containsExactly(UNAUTHORIZED, FORBIDDEN, NOT_ACCEPTABLE);
  }

  @Test
  void openPathsNeedNoTokenAndSelfAnsweringHandlersDeclareTheirOwn() {
    assertThat(codes(new Open(), "healthz")).containsExactly(NOT_ACCEPTABLE);
    assertThat(ProblemRules.needsToken(handler(new Open(), "healthz"))).isFalse();
    assertThat(codes(new Open(), "verify")).isEmpty();
    assertThat(codes(new Open(), "login")).isEmpty();
    assertThat(ProblemRules.paths(handler(new Things(), "move"))).containsExactly("/api/v1/things/{id}/move");
  }

  private static Set<ProblemCode> codes(Object controller, String method) {
    return ProblemRules.of(handler(controller, method));
  }

  private static HandlerMethod handler(Object controller, String name) {
    return new HandlerMethod(controller, Arrays.stream(controller.getClass().getDeclaredMethods())
        .filter(m -> m.getName().equals(name)).findFirst().orElseThrow());
  }
}
