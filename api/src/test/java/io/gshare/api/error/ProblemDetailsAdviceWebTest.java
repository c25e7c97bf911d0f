package io.gshare.api.error;

import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.grpc.Status;
import io.gshare.core.audit.AuditLog;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import java.sql.SQLException;
import java.util.Map;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.AutoConfigureMockMvc;
import org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.MediaType;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The error contract at the web layer alone (a MockMvc slice: the advice, MVC and the api's Jackson settings; no
 * database, Temporal, cluster or security chain): every refusal a handler or MVC itself makes is one RFC 9457
 * {@code application/problem+json} document with its type, title, status, detail and code, and a 5xx names no
 * internals. The refusals are raised by a controller of this test, as the api's controllers and services raise them;
 * {@code ErrorsIT} sends the same through the whole running api.
 */
@WebMvcTest
@AutoConfigureMockMvc(addFilters = false)
class ProblemDetailsAdviceWebTest {

  @Configuration
  @Import({ProblemDetailsAdvice.class, Refusals.class})
  static class Slice {}

  record Body(@NotBlank String name, @Min(1) int gpus) {}

  @RestController
  static class Refusals {

    @PostMapping(path = "/slice/bodies", consumes = MediaType.APPLICATION_JSON_VALUE)
    Map<String, String> body(@Valid @RequestBody Body body) {
      return Map.of("name", body.name());
    }

    @GetMapping("/slice/refusals/{kind}")
    String refuse(@PathVariable String kind) {
      throw switch (kind) {
        case "credits" -> new GshareException(ProblemCode.INSUFFICIENT_CREDITS, "the session needs 12 credits, you have 3",
            Map.of("balance", 3));
        case "denied" -> new AccessDeniedException("role user");
        case "grpc" -> Status.UNAVAILABLE.withDescription("connection refused to 10.0.0.7:7233").asRuntimeException();
        case "database" -> new CannotCreateTransactionException("connection refused to db.internal:5432");
        case "unique" -> new DataIntegrityViolationException("duplicate key",
            new SQLException("duplicate key value violates unique constraint \"users_email_key\"", "23505"));
        case "check" -> new DataIntegrityViolationException("check",
            new SQLException("new row violates check constraint \"volumes_size_check\"", "23514"));
        default -> new IllegalStateException("secret internals: password=hunter2");
      };
    }
  }

  @Autowired
  private MockMvc mvc;

  @MockitoBean
  private AuditLog audit;

  @Test
  void aDomainRefusalKeepsItsCodeStatusDetailAndProperties() throws Exception {
    problem(mvc.perform(get("/slice/refusals/credits")), ProblemCode.INSUFFICIENT_CREDITS)
        .andExpect(jsonPath("$.detail").value("the session needs 12 credits, you have 3"))
        .andExpect(jsonPath("$.balance").value(3));
  }

  @Test
  void invalidFieldsAreListedOneByOne() throws Exception {
    problem(postJson("{\"name\":\"\",\"gpus\":0}"), ProblemCode.VALIDATION_FAILED)
        .andExpect(jsonPath("$.errors[*].field", Matchers.containsInAnyOrder("name", "gpus")));
  }

  @Test
  void anUnknownMemberOrBrokenJsonIsABadRequestThatSaysWhich() throws Exception {
    problem(postJson("{\"name\":\"a\",\"gpus\":1,\"gpu\":2}"), ProblemCode.BAD_REQUEST)
        .andExpect(jsonPath("$.detail").value("unknown field 'gpu'"));
    problem(postJson("{\"name\":"), ProblemCode.BAD_REQUEST)
        .andExpect(jsonPath("$.detail").value("the request body is not valid JSON for this endpoint"));
  }

  @Test
  void mvcsOwnRefusalsTakeTheSameShape() throws Exception {
    problem(mvc.perform(delete("/slice/bodies")), ProblemCode.METHOD_NOT_ALLOWED);
    problem(mvc.perform(post("/slice/bodies").contentType(MediaType.TEXT_PLAIN).content("x")),
        ProblemCode.UNSUPPORTED_MEDIA_TYPE);
    problem(mvc.perform(get("/slice/no-such-route")), ProblemCode.NOT_FOUND);
  }

  @Test
  void aServerFaultNamesNoInternals() throws Exception {
    problem(mvc.perform(get("/slice/refusals/bug")), ProblemCode.INTERNAL)
        .andExpect(jsonPath("$.detail").value("an internal error occurred"))
        .andExpect(content().string(Matchers.not(Matchers.containsString("hunter2"))));
    problem(mvc.perform(get("/slice/refusals/grpc")), ProblemCode.TEMPORAL_UNAVAILABLE)
        .andExpect(content().string(Matchers.not(Matchers.containsString("10.0.0.7"))));
    problem(mvc.perform(get("/slice/refusals/database")), ProblemCode.DATABASE_UNAVAILABLE)
        .andExpect(content().string(Matchers.not(Matchers.containsString("db.internal"))));
  }

  @Test
  void aStoreConstraintIsAConflictOrAValidationFailureWithoutTheConstraintsName() throws Exception {
    problem(mvc.perform(get("/slice/refusals/unique")), ProblemCode.CONFLICT)
        .andExpect(content().string(Matchers.not(Matchers.containsString("users_email_key"))));
    problem(mvc.perform(get("/slice/refusals/check")), ProblemCode.VALIDATION_FAILED)
        .andExpect(content().string(Matchers.not(Matchers.containsString("volumes_size_check"))));
  }

  @Test
  void methodSecuritysRefusalIsAudited() throws Exception {
    problem(mvc.perform(get("/slice/refusals/denied")), ProblemCode.FORBIDDEN);
    verify(audit).denied(anyString(), eq("endpoint"), eq("GET /slice/refusals/denied"),
        eq("not allowed for this caller"));
  }

  private ResultActions postJson(String json) throws Exception {
    return mvc.perform(post("/slice/bodies").contentType(MediaType.APPLICATION_JSON).content(json));
  }

  private static ResultActions problem(ResultActions answer, ProblemCode code) throws Exception {
    return answer.andExpect(status().is(code.status()))
        .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
        .andExpect(jsonPath("$.type").value(code.type().toString()))
        .andExpect(jsonPath("$.title").value(code.title()))
        .andExpect(jsonPath("$.status").value(code.status()))
        .andExpect(jsonPath("$.code").value(code.code()))
        .andExpect(jsonPath("$.detail").isNotEmpty());
  }
}
