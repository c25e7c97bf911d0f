package io.gshare.cli.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What {@code gshare login} and {@code gshare context} keep: the control planes the user talks to, by context name,
 * and which one is current. Written to the user's config dir with mode 0600 ({@link ConfigStore}).
 *
 * @param currentContext the context commands use unless {@code --context} names another
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CliConfig(String currentContext, Map<String, Context> contexts) {

  public CliConfig {
    contexts = contexts == null ? new TreeMap<>() : new TreeMap<>(contexts);
  }

  public static CliConfig empty() {
    return new CliConfig(null, Map.of());
  }

  /**
   * One control plane and the credential for it.
   *
   * @param server the API's base URL, e.g. {@code https://gshare.example.com}
   * @param token a gShare API token (from {@code login --token} or the browser sign-in)
   * @param user who the token signs in, as the API reported it at login
   * @param tokenExpiresAt when the token stops working; null when unknown or never
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Context(String server, String token, String user, Instant tokenExpiresAt) {}

  public Optional<Context> context(String name) {
    return Optional.ofNullable(contexts.get(name));
  }

  public CliConfig with(String name, Context context, boolean makeCurrent) {
    Map<String, Context> next = new TreeMap<>(contexts);
    next.put(name, context);
    return new CliConfig(makeCurrent || currentContext == null ? name : currentContext, next);
  }

  public CliConfig without(String name) {
    Map<String, Context> next = new TreeMap<>(contexts);
    next.remove(name);
    return new CliConfig(name.equals(currentContext) ? next.keySet().stream().findFirst().orElse(null) : currentContext,
        next);
  }

  public CliConfig use(String name) {
    return new CliConfig(name, contexts);
  }
}
