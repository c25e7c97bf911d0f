package io.gshare.activities.control;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gshare.activities.cluster.ClusterActivitiesImpl;
import io.gshare.activities.cluster.model.WorkerObjects;
import io.gshare.workflows.cluster.ClusterDescription;
import io.gshare.workflows.cluster.ClusterRemoteActivities;
import io.gshare.workflows.cluster.IssuedToken;
import io.gshare.workflows.common.TaskQueues;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's own calls to a cluster's apiserver, with the cluster's stored kubeconfig.
 * Objects are server-side applied under one field manager, so every call converges.
 */
@ActivitiesOn(taskQueue = TaskQueues.CONTROL)
public class ClusterRemoteActivitiesImpl implements ClusterRemoteActivities {

  private static final Logger log = LoggerFactory.getLogger(ClusterRemoteActivitiesImpl.class);

  private final KubeconfigSource kubeconfigs;
  private final OperatorTokenSigner signer;
  private final WorkerDeployer deployer;
  private final OperatorTokenLedger ledger;
  private final ClusterIdentityLedger identities;

  public ClusterRemoteActivitiesImpl(KubeconfigSource kubeconfigs, OperatorTokenSigner signer, WorkerDeployer deployer) {
    this(kubeconfigs, signer, deployer, OperatorTokenLedger.NONE, ClusterIdentityLedger.NONE);
  }

  public ClusterRemoteActivitiesImpl(KubeconfigSource kubeconfigs, OperatorTokenSigner signer, WorkerDeployer deployer,
      OperatorTokenLedger ledger, ClusterIdentityLedger identities) {
    this.kubeconfigs = kubeconfigs;
    this.signer = signer;
    this.deployer = deployer;
    this.ledger = ledger;
    this.identities = identities;
  }

  /** A client that fails fast: retries belong to the workflow, not to the activity. */
  KubernetesClient client(String clusterId) {
    return clientOf(kubeconfigs.kubeconfig(clusterId));
  }

  private static KubernetesClient clientOf(String kubeconfig) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setConnectionTimeout(5_000);
    config.setRequestTimeout(15_000);
    config.setRequestRetryBackoffLimit(0);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private <T> T withClient(String clusterId, Function<KubernetesClient, T> work) {
    try (KubernetesClient client = client(clusterId)) {
      return work.apply(client);
    }
  }

  @Override
  public String probeApiserver(String clusterId) {
    return withClient(clusterId, c -> {
      String version = c.getKubernetesVersion().getGitVersion();
      String uid = kubeSystemUid(c);
      if (uid != null) {
        identities.seen(clusterId, uid);
      }
      return version;
    });
  }

  /**
   * Which cluster a kubeconfig reaches: the uid of its kube-system namespace (it lives as long as the cluster).
   * Throws with the apiserver's or the connection's reason when the kubeconfig does not reach one.
   */
  public static String identityOf(String kubeconfig) {
    try (KubernetesClient client = clientOf(kubeconfig)) {
      String uid = kubeSystemUid(client);
      if (uid == null) {
        throw new IllegalStateException("its cluster has no kube-system namespace");
      }
      return uid;
    }
  }

  private static String kubeSystemUid(KubernetesClient client) {
    var namespace = client.namespaces().withName("kube-system").get();
    return namespace == null ? null : namespace.getMetadata().getUid();
  }

  @Override
  public ClusterDescription checkRuntime(String clusterId) {
    return withClient(clusterId, c -> new ClusterActivitiesImpl(c).describeCluster());
  }

  @Override
  public void prepareNamespace(String clusterId) {
    withClient(clusterId, c -> {
      apply(c, WorkerObjects.namespace(clusterId));
      apply(c, WorkerObjects.serviceAccount(clusterId));
      apply(c, WorkerObjects.clusterRole(clusterId));
      apply(c, WorkerObjects.clusterRoleBinding(clusterId));
      return null;
    });
  }

  @Override
  public void installOperatorToken(String clusterId) {
    writeToken(clusterId);
  }

  @Override
  public IssuedToken rotateOperatorToken(String clusterId) {
    return writeToken(clusterId);
  }

  /**
   * Signed and written in one step: the token never travels through workflow history. An attach and a
   * rotation may both write the Secret; the last writer wins, and both tokens verify until they expire.
   */
  private IssuedToken writeToken(String clusterId) {
    OperatorTokenSigner.Signed signed = signer.sign(clusterId);
    withClient(clusterId, c -> {
      apply(c, WorkerObjects.tokenSecret(clusterId, signed.token()));
      if (deployer != null) {
        deployer.tokenSecretChanged(clusterId, c);
      }
      return null;
    });
    ledger.issued(clusterId, signed.jti(), signed.issuedAt(), signed.expiresAt());
    log.info("wrote operator token {} for {} into {}/{} (expires {})", signed.jti(), clusterId, WorkerObjects.NAMESPACE,
        WorkerObjects.TOKEN_SECRET, signed.expiresAt());
    return new IssuedToken(clusterId, signed.jti(), signed.issuedAt().toEpochMilli(), signed.expiresAt().toEpochMilli());
  }

  @Override
  public String deployWorker(String clusterId) {
    return withClient(clusterId, c -> deployer.ensureRunning(clusterId, c));
  }

  @Override
  public void removeWorker(String clusterId) {
    withClient(clusterId, c -> {
      deployer.remove(clusterId, c);
      c.secrets().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.TOKEN_SECRET).delete();
      c.rbac().clusterRoleBindings().withName(WorkerObjects.NAME).delete();
      c.rbac().clusterRoles().withName(WorkerObjects.NAME).delete();
      c.serviceAccounts().inNamespace(WorkerObjects.NAMESPACE).withName(WorkerObjects.NAME).delete();
      return null;
    });
  }

  private static Object apply(KubernetesClient client, HasMetadata object) {
    return client.resource(object).fieldManager(WorkerObjects.FIELD_MANAGER).forceConflicts().serverSideApply();
  }
}
