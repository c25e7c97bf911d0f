package io.gshare.api.temporalgateway;

import io.gshare.api.security.Callers;
import io.gshare.api.security.InvalidTokenException;
import io.gshare.api.security.SecurityProperties;
import io.gshare.api.support.SecretFiles;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.core.audit.AuditLog;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Starts the Temporal gateway when {@code gshare.temporal-gateway.enabled}; stops it with the api. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "gshare.temporal-gateway", name = "enabled", havingValue = "true")
class TemporalGatewayConfig {

  /** The secret every replica seals task tokens with, beside the api's other keys. */
  static final String SEAL_SECRET_FILE = "temporal-gateway-task-token.key";
  private static final Logger log = LoggerFactory.getLogger(TemporalGatewayConfig.class);

  @Bean(destroyMethod = "close")
  TemporalGateway temporalGateway(TemporalGatewayProperties gateway, TemporalProperties temporal,
      WorkflowServiceStubs stubs, Callers callers, AuditLog audit, SecurityProperties security) {
    OperatorAuthenticator authenticator = RememberedTokens.of(token -> {
      try {
        return callers.operator(token).clusterId();
      } catch (InvalidTokenException e) {
        throw new OperatorAuthenticator.Refused(e.getMessage());
      }
    }, gateway.tokenCache());
    DeniedCalls denied = (clusterId, method, rule) ->
        audit.denied(clusterId == null ? "anonymous" : "operator:" + clusterId, "temporal", method, rule);
    TemporalGateway started = TemporalGateway.start(new InetSocketAddress(gateway.bindAddress(), gateway.port()),
        stubs.futureStub(), temporal.namespace(), new TaskTokenSeal(sealSecret(security)), authenticator, denied);
    log.info("Temporal gateway for cluster-workers on {}:{} (namespace {}, upstream {})", gateway.bindAddress(),
        started.port(), temporal.namespace(), temporal.address());
    return started;
  }

  private static byte[] sealSecret(SecurityProperties security) {
    Path file = security.keyDir().resolve(SEAL_SECRET_FILE);
    try {
      if (!Files.exists(file)) {
        if (!security.generateMissingKeys()) {
          throw new IllegalStateException("no task-token secret of the Temporal gateway at " + file);
        }
        byte[] fresh = new byte[32];
        new SecureRandom().nextBytes(fresh);
        SecretFiles.write(file, Base64.getEncoder().encodeToString(fresh));
      }
      return Base64.getDecoder().decode(Files.readString(file).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
