package io.gshare.api.user;

import io.gshare.api.error.ProblemResponses;
import io.gshare.api.security.AdminOnly;
import io.gshare.api.security.Caller;
import io.gshare.core.error.ProblemCode;
import io.gshare.core.user.UserRepository;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Email;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/users")
@Tag(name = "users")
class UserController {

  private final UserService users;

  UserController(UserService users) {
    this.users = users;
  }

  record NewUser(@NotBlank @Email @Size(max = 320) String email, @Size(max = 200) String displayName, String role,
      String teamId) {}

  record UserChange(String role, String teamId, Boolean disabled, @Size(max = 200) String displayName) {}

  record NewToken(@Size(max = 100) String name, @Min(1) @Max(365) Integer ttlDays) {}

  record UserList(List<UserRepository.User> items) {}

  record TokenList(List<UserRepository.ApiToken> items) {}

  record IssuedToken(String id, String token, Instant expiresAt) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Create a user (admins; only a super admin creates admins)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  UserRepository.User create(Caller.User caller, @Valid @RequestBody NewUser body) {
    return users.create(caller, body.email(), body.displayName(), body.role(), body.teamId());
  }

  @GetMapping
  @Operation(summary = "List users (admins)")
  @AdminOnly
  UserList list(Caller.User caller) {
    return new UserList(users.list());
  }

  @GetMapping("/me")
  @Operation(summary = "The calling user")
  UserRepository.User me(Caller.User caller) {
    return users.get(caller, caller.userId());
  }

  @GetMapping("/{id}")
  @Operation(summary = "One user (admins, or the user themselves)")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  UserRepository.User get(Caller.User caller, @PathVariable String id) {
    return users.get(caller, id);
  }

  @PatchMapping("/{id}")
  @Operation(summary = "Change a user's role, team, name or disabled flag (admins; role changes to or from admin need a super admin)")
  @AdminOnly
  @ProblemResponses({ProblemCode.CONFLICT})
  UserRepository.User update(Caller.User caller, @PathVariable String id, @Valid @RequestBody UserChange body) {
    return users.update(caller, id, body.role(), body.teamId(), body.disabled(), body.displayName());
  }

  @PostMapping("/{id}/tokens")
  @ResponseStatus(HttpStatus.CREATED)
  @Operation(summary = "Issue an API token (the user themselves, or an admin); the token is shown only here")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  IssuedToken issue(Caller.User caller, @PathVariable String id, @Valid @RequestBody(required = false) NewToken body) {
    NewToken request = body == null ? new NewToken(null, null) : body;
    UserService.IssuedToken issued = users.issueToken(caller, id, request.name(),
        request.ttlDays() == null ? null : Duration.ofDays(request.ttlDays()));
    return new IssuedToken(issued.id(), issued.token(), issued.expiresAt());
  }

  @GetMapping("/{id}/tokens")
  @Operation(summary = "A user's tokens, without their values")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  TokenList tokens(Caller.User caller, @PathVariable String id) {
    return new TokenList(users.tokens(caller, id));
  }

  @DeleteMapping("/{id}/tokens/{tokenId}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(summary = "Revoke a token; it stops working at once")
  @ProblemResponses({ProblemCode.FORBIDDEN})
  void revoke(Caller.User caller, @PathVariable String id, @PathVariable String tokenId) {
    users.revoke(caller, id, tokenId);
  }
}
