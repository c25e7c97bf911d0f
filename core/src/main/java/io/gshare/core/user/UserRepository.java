package io.gshare.core.user;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
public class UserRepository {

  public record User(String id, String email, String displayName, Role role, String teamId, boolean disabled,
      Instant createdAt) {}

  public record ApiToken(String id, String userId, String name, Instant createdAt, Instant expiresAt, Instant revokedAt) {}

  /** What authentication needs about a token's holder, in one read. */
  public record TokenHolder(String userId, Role role, String teamId, boolean disabled, Instant revokedAt) {}

  private final JdbcClient jdbc;

  UserRepository(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public Optional<TokenHolder> tokenHolder(String tokenId, String userId) {
    return jdbc.sql("""
        select u.id, u.role, u.team_id, u.disabled, t.revoked_at
          from api_tokens t join users u on u.id = t.user_id
         where t.id = :token and t.user_id = :user
        """)
        .param("token", tokenId).param("user", userId)
        .query((rs, n) -> new TokenHolder(rs.getString("id"), Role.fromWire(rs.getString("role")), rs.getString("team_id"),
            rs.getBoolean("disabled"), instant(rs.getTimestamp("revoked_at"))))
        .optional();
  }

  public boolean exists(String userId) {
    return jdbc.sql("select count(*) from users where id = :u").param("u", userId).query(Integer.class).single() > 0;
  }

  public Optional<User> findById(String id) {
    return jdbc.sql("select * from users where id = :id").param("id", id).query(UserRepository::user).optional();
  }

  public Optional<User> findByEmail(String email) {
    return jdbc.sql("select * from users where lower(email) = lower(:email)").param("email", email)
        .query(UserRepository::user).optional();
  }

  public List<User> findAll() {
    return jdbc.sql("select * from users order by created_at, id").query(UserRepository::user).list();
  }

  public Optional<User> firstSuperAdmin() {
    return jdbc.sql("select * from users where role = 'super_admin' and not disabled order by created_at, id limit 1")
        .query(UserRepository::user).optional();
  }

  public void insert(String id, String email, String displayName, Role role, String teamId) {
    jdbc.sql("insert into users (id, email, display_name, role, team_id) values (:id, :email, :name, :role, :team)")
        .param("id", id).param("email", email).param("name", displayName).param("role", role.wireName())
        .param("team", teamId)
        .update();
  }

  public void update(String id, Role role, String teamId, boolean disabled, String displayName) {
    jdbc.sql("update users set role = :role, team_id = :team, disabled = :disabled, display_name = :name where id = :id")
        .param("id", id).param("role", role.wireName()).param("team", teamId).param("disabled", disabled).param("name", displayName)
        .update();
  }

  public void insertToken(String id, String userId, String name, Instant expiresAt) {
    jdbc.sql("insert into api_tokens (id, user_id, name, expires_at) values (:id, :user, :name, :expires)")
        .param("id", id).param("user", userId).param("name", name).param("expires", Timestamp.from(expiresAt))
        .update();
  }

  public List<ApiToken> tokensOf(String userId) {
    return jdbc.sql("select * from api_tokens where user_id = :user order by created_at desc")
        .param("user", userId)
        .query((rs, n) -> new ApiToken(rs.getString("id"), rs.getString("user_id"), rs.getString("name"),
            instant(rs.getTimestamp("created_at")), instant(rs.getTimestamp("expires_at")),
            instant(rs.getTimestamp("revoked_at"))))
        .list();
  }

  /** Revokes once; revoking again changes nothing. */
  public boolean revokeToken(String userId, String tokenId) {
    return jdbc.sql("update api_tokens set revoked_at = coalesce(revoked_at, now()) where id = :id and user_id = :user")
        .param("id", tokenId).param("user", userId).update() > 0;
  }

  public boolean teamExists(String teamId) {
    return jdbc.sql("select count(*) from teams where id = :id").param("id", teamId).query(Integer.class).single() > 0;
  }

  private static User user(ResultSet rs, int row) throws SQLException {
    return new User(rs.getString("id"), rs.getString("email"), rs.getString("display_name"),
        Role.fromWire(rs.getString("role")),
        rs.getString("team_id"), rs.getBoolean("disabled"), instant(rs.getTimestamp("created_at")));
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
