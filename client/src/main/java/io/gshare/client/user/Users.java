package io.gshare.client.user;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import java.time.Instant;
import java.util.List;

/** {@code /api/v1/users}: who signs in, with which role, and their API tokens. */
public final class Users {

  private final GshareClient api;

  public Users(GshareClient api) {
    this.api = api;
  }

  /** Who the caller's token signs in. */
  public Me me() {
    return api.get(ApiPaths.ME, Me.class);
  }

  public User create(NewUser user) {
    return api.post(ApiPaths.USERS, user, User.class);
  }

  public UserList list() {
    return api.get(ApiPaths.USERS, UserList.class);
  }

  /** A new API token of {@code userId} (admins, or the user themself). */
  public IssuedToken issueToken(String userId, NewToken token) {
    return api.post(ApiPaths.userTokens(userId), token, IssuedToken.class);
  }

  /** {@code POST /api/v1/users}'s body. */
  public record NewUser(String email, String displayName, String role, String teamId) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record User(String id, String email, String displayName, String role, String teamId, Boolean disabled) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record UserList(List<User> items) {
    public UserList {
      items = items == null ? List.of() : List.copyOf(items);
    }
  }

  /** {@code POST /api/v1/users/{id}/tokens}'s body; absent members take the API's defaults. */
  public record NewToken(String name, Integer ttlDays) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  public record IssuedToken(String id, String token, Instant expiresAt) {}
}
