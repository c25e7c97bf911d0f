package io.gshare.api.cluster;

import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.activities.control.ClusterRemoteActivitiesImpl;
import io.gshare.activities.control.ClusterRerouteActivitiesImpl;
import io.gshare.activities.control.ClusterStateActivitiesImpl;
import io.gshare.activities.control.KubeconfigProofActivitiesImpl;
import io.gshare.activities.control.KubernetesWorkerDeployer;
import io.gshare.activities.control.LocalWorkerDeployerProvider;
import io.gshare.activities.control.LocalWorkerSettings;
import io.gshare.activities.control.OperatorTokenSigner;
import io.gshare.activities.control.SigningKeyActivitiesImpl;
import io.gshare.activities.control.TokenRotationActivitiesImpl;
import io.gshare.activities.control.WorkerDeployer;
import io.gshare.api.security.SecurityProperties;
import io.gshare.api.security.TokenKind;
import io.gshare.api.security.Tokens;
import io.gshare.api.temporal.TemporalProperties;
import io.gshare.api.temporalgateway.TemporalGateway;
import io.gshare.core.alert.Alerts;
import io.gshare.core.cluster.ClusterLifecycleRepository;
import io.gshare.core.cluster.ClusterRepository;
import io.gshare.core.cluster.OperatorTokenRepository;
import io.gshare.core.operation.OperationRepository;
import io.gshare.core.session.SessionRepository;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The control activities of the cluster lifecycle, wired to the api's keys, kubeconfig store and settings; the control
 * worker registers them by their {@code @ActivitiesOn}.
 */
@Configuration(proxyBeanMethods = false)
class ControlActivitiesConfig {

  @Bean(destroyMethod = "")
  WorkerDeployer workerDeployer(ClusterWorkerProperties worker, TemporalProperties temporal, Environment environment,
      ObjectProvider<BuildProperties> build, ObjectProvider<TemporalGateway> gateway) {
    String temporalAddress = worker.temporalAddress() == null || worker.temporalAddress().isBlank() ? temporal.address()
        : worker.temporalAddress();
    // Local workers reach Temporal only through the gateway when it runs (the dev runtime, the tests).
    TemporalGateway localGateway = worker.deploy() == ClusterWorkerProperties.Deploy.LOCAL_PROCESS
        ? gateway.getIfAvailable() : null;
    return switch (worker.deploy()) {
      case LOCAL_PROCESS -> {
        Path state = worker.local().stateDir() != null ? worker.local().stateDir()
            : Path.of(System.getProperty("java.io.tmpdir"), "gshare-local-workers");
        // This api's own gateway, unless a gateway is named (the dev runtime's front of several replicas' gateways,
        // which a worker keeps reaching when the replica that started it goes away).
        boolean namedGateway = worker.temporalGateway() && worker.temporalAddress() != null
            && !worker.temporalAddress().isBlank();
        String localAddress = namedGateway ? worker.temporalAddress()
            : localGateway != null ? "127.0.0.1:" + localGateway.port() : temporalAddress;
        // Dev-only: the deployer is on the class path only where the dev runtime or a test put it.
        yield LocalWorkerDeployerProvider.load(new LocalWorkerSettings(worker.local().jar(), state,
            worker.local().logDir(), localAddress, temporal.namespace(),
            () -> worker.controlPlaneUrl() != null && !worker.controlPlaneUrl().isBlank() ? worker.controlPlaneUrl()
                : "http://127.0.0.1:" + environment.getProperty("local.server.port", "8080"),
            worker.inventoryIntervalSeconds(), worker.volumeSyncIntervalSeconds(), worker.agent().enabled(),
            namedGateway || localGateway != null, worker.local().shared()));
      }
      case KUBERNETES -> new KubernetesWorkerDeployer(new WorkerObjects.Settings(
          worker.imageFor(build.getIfAvailable() == null ? null : build.getIfAvailable().getVersion()),
          worker.imagePullPolicy(), temporalAddress, temporal.namespace(), worker.controlPlaneUrl(),
          worker.inventoryIntervalSeconds(), worker.volumeSyncIntervalSeconds(), worker.temporalGateway(),
          worker.temporalTls()), worker.agent().enabled());
    };
  }

  /** Stops local workers with the api, so a stopped dev runtime leaves nothing running. */
  @Bean
  DisposableBean localWorkersStop(WorkerDeployer deployer) {
    return () -> {
      if (deployer instanceof AutoCloseable local) {
        local.close();
      }
    };
  }

  @Bean
  ClusterRemoteActivitiesImpl clusterRemoteActivities(ClusterLifecycleRepository clusters, KubeconfigCipher cipher,
      Tokens tokens, SecurityProperties security, WorkerDeployer deployer, OperatorTokenRepository operatorTokens) {
    return new ClusterRemoteActivitiesImpl(
        clusterId -> {
          byte[] sealed = clusters.sealedKubeconfig(clusterId);
          if (sealed == null) {
            throw new IllegalArgumentException("cluster " + clusterId + " has no stored kubeconfig");
          }
          return cipher.decrypt(clusterId, sealed);
        },
        clusterId -> {
          Tokens.Signed signed = tokens.signed(TokenKind.INTERNAL, "operator:" + clusterId, null, security.internalTokenTtl());
          return new OperatorTokenSigner.Signed(signed.token(), signed.tokenId(), signed.issuedAt(), signed.expiresAt());
        },
        deployer, operatorTokens::issued, clusters::recordIdentity);
  }

  @Bean
  KubeconfigProofActivitiesImpl kubeconfigProofActivities(ClusterLifecycleRepository lifecycle, ClusterRepository clusters,
      KubeconfigCipher cipher) {
    return new KubeconfigProofActivitiesImpl(cipher::decrypt, clusters::kubeSystemUid, clusterId -> {
      byte[] sealed = lifecycle.sealedKubeconfig(clusterId);
      if (sealed == null) {
        throw new IllegalArgumentException("cluster " + clusterId + " has no stored kubeconfig");
      }
      return cipher.decrypt(clusterId, sealed);
    }, ClusterRemoteActivitiesImpl::identityOf);
  }

  @Bean
  ClusterStateActivitiesImpl clusterStateActivities(ClusterLifecycleRepository clusters, OperationRepository operations) {
    return new ClusterStateActivitiesImpl(clusters, operations);
  }

  @Bean
  TokenRotationActivitiesImpl tokenRotationActivities(OperatorTokenRepository operatorTokens, Alerts alerts) {
    return new TokenRotationActivitiesImpl(operatorTokens, alerts);
  }

  @Bean
  ClusterRerouteActivitiesImpl clusterRerouteActivities(SessionRepository sessions, OperationRepository operations,
      WorkflowClient client) {
    return new ClusterRerouteActivitiesImpl(sessions, operations, client);
  }

  /** The same rotation as POST /api/v1/system/keys/internal/rotate. */
  @Bean
  SigningKeyActivitiesImpl signingKeyActivities(Tokens tokens) {
    return new SigningKeyActivitiesImpl(() -> tokens.rotate(TokenKind.INTERNAL).getKeyID());
  }
}
