package io.gshare.api.temporal;

import io.gshare.activities.temporal.TemporalClientAuth;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Where Temporal is and how gShare's workers use it ({@code GSHARE_TEMPORAL_ADDRESS} sets the address).
 *
 * @param stickyScheduleToStart how long a workflow task waits for the worker that cached its workflow
 *     before any worker may take it. A worker that stops cleanly hands its sticky tasks back at once;
 *     one that is killed holds them this long, so it bounds how soon another api replica takes over
 *     the workflows the dead one had cached
 * @param workflowCacheSize workflows kept in memory between tasks; 0 disables sticky execution
 * @param uiUrl the Temporal Web UI's base URL, for the deep links of operation views; blank leaves them out
 * @param tlsCert mutual TLS: the client certificate file (PEM); blank: none
 * @param tlsKey its private key file (PEM, PKCS#8)
 * @param tlsCa the CA file of the server's certificate; blank: the JVM's trust store
 * @param tlsServerName the name to verify the server's certificate against; blank: the address's host
 * @param apiKeyFile a file holding an API key (a JWT for Temporal's authorizer) sent as a bearer token
 */
@Validated
@ConfigurationProperties(prefix = "gshare.temporal", ignoreUnknownFields = false)
public record TemporalProperties(
    @DefaultValue("127.0.0.1:7233") @Pattern(regexp = "[^\\s:/]+:\\d{1,5}", message = "must be host:port") String address,
    @DefaultValue("default") @NotBlank String namespace,
    @DefaultValue("5s") @NotNull @DurationMin(millis = 1) Duration stickyScheduleToStart,
    @DefaultValue("600") @PositiveOrZero int workflowCacheSize,
    @DefaultValue("") @Pattern(regexp = "(https?://[^\\s]+[^/\\s])?", message = "must be an http(s) URL without a trailing slash") String uiUrl,
    @DefaultValue("") String tlsCert,
    @DefaultValue("") String tlsKey,
    @DefaultValue("") String tlsCa,
    @DefaultValue("") String tlsServerName,
    @DefaultValue("") String apiKeyFile) {

  public TemporalProperties {
    List<String> problems = auth(tlsCert, tlsKey, tlsCa, tlsServerName, apiKeyFile).problems("gshare.temporal.tls-cert",
        "gshare.temporal.tls-key", "gshare.temporal.tls-ca", "gshare.temporal.api-key-file");
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  /** How the api authenticates to Temporal. */
  public TemporalClientAuth auth() {
    return auth(tlsCert, tlsKey, tlsCa, tlsServerName, apiKeyFile);
  }

  private static TemporalClientAuth auth(String cert, String key, String ca, String serverName, String apiKey) {
    return new TemporalClientAuth(path(cert), path(key), path(ca), serverName == null || serverName.isBlank() ? null
        : serverName.trim(), path(apiKey));
  }

  private static Path path(String value) {
    return value == null || value.isBlank() ? null : Path.of(value.trim());
  }
}
