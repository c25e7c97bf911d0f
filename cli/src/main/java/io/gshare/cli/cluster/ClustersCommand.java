package io.gshare.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.operation.OperationFollower;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.OutputFormat;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.cluster.Cluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gshare clusters}: attach, test, rotate and detach GPU clusters (operators). */
@Command(name = "clusters", aliases = "cluster", mixinStandardHelpOptions = true,
    description = "GPU clusters (admins): attach, test the connection, rotate the operator token, detach.",
    subcommands = {ClustersCommand.ListClusters.class, ClustersCommand.Get.class, ClustersCommand.Attach.class,
        ClustersCommand.Test.class, ClustersCommand.RotateToken.class, ClustersCommand.Detach.class})
public final class ClustersCommand {


  static Table table(List<Cluster> clusters) {
    Table table = Table.of("ID", "NAME", "STATUS", "NODES", "GPUS", "SESSION DOMAIN", "WORKER SEEN");
    clusters.forEach(c -> table.row(c.id(), c.name(), c.status(),
        c.nodeCount() == null ? null : c.nodeCount() + (c.offlineNodes() != null && c.offlineNodes() > 0
            ? " (" + c.offlineNodes() + " offline)" : ""), c.gpuCount(), c.sessionDomain(), c.workerLastSeenAt()));
    return table;
  }

  /** A cluster named by id ({@code clu_...}) or by name. */
  static String resolve(GshareClient api, String idOrName) {
    if (idOrName.startsWith("clu_")) {
      return idOrName;
    }
    List<Cluster> named = api.get(ApiPaths.CLUSTERS, Cluster.ClusterList.class).items().stream()
        .filter(c -> idOrName.equals(c.name())).toList();
    if (named.size() != 1) {
      throw new CliException(named.isEmpty() ? "no cluster named '" + idOrName + "' (gshare clusters list)"
          : named.size() + " clusters are named '" + idOrName + "'; give its id");
    }
    return named.get(0).id();
  }

  /** Options of the commands that start an operation and can follow it. */
  abstract static class Operating extends CliCommand {
    @Option(names = "--wait", description = "follow the operation's steps until it ends") boolean wait;
    @Option(names = "--timeout", defaultValue = "PT20M", paramLabel = "DURATION",
        description = "how long --wait waits (ISO-8601, default ${DEFAULT-VALUE})")
    Duration timeout;

    void accepted(GshareClient api, JsonNode raw) {
      Cluster.Accepted accepted = GshareClient.convert(raw, Cluster.Accepted.class);
      OperationFollower.followOrAnnounce(env(), api, accepted.operation(), wait, timeout);
      if (wait && accepted.operation() != null) {
        // Followed to its end: show the cluster as it is now, not as the request found it.
        JsonNode now = api.get(ApiPaths.cluster(accepted.cluster().id()));
        print(now, () -> table(List.of(GshareClient.convert(now, Cluster.class))));
      } else {
        print(raw, () -> table(List.of(accepted.cluster())));
      }
    }
  }

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true, description = "The attached clusters.",
      footerHeading = "%nExamples:%n", footer = {"  gshare clusters list", "  gshare clusters list --include-detached"})
  static final class ListClusters extends CliCommand implements Runnable {
    @Option(names = "--include-detached", description = "detached ones too") boolean all;

    @Override
    public void run() {
      JsonNode raw = api().get(ApiPaths.query(ApiPaths.CLUSTERS, "include_detached", all ? "true" : null));
      print(raw, () -> table(GshareClient.convert(raw, Cluster.ClusterList.class).items()));
    }
  }

  @Command(name = "get", mixinStandardHelpOptions = true, description = "One cluster.",
      footerHeading = "%nExamples:%n", footer = {"  gshare clusters get gpu-lab -o yaml"})
  static final class Get extends CliCommand implements Runnable {
    @Parameters(paramLabel = "CLUSTER") String cluster;

    @Override
    public void run() {
      GshareClient api = api();
      JsonNode raw = api.get(ApiPaths.cluster(resolve(api, cluster)));
      print(raw, () -> table(List.of(GshareClient.convert(raw, Cluster.class))));
    }
  }

  @Command(name = "attach", mixinStandardHelpOptions = true,
      description = "Attach a cluster with an admin kubeconfig (from hack/cluster-bootstrap.sh): the attach workflow"
          + " deploys its worker and waits for its first report.",
      footerHeading = "%nExamples:%n", footer = {
          "  gshare clusters attach --name gpu-lab --kubeconfig gpu-lab.kubeconfig --session-domain gpu-lab.example.com --wait",
          "  gshare clusters attach gpu-lab --wait     # attach again: converge a failed attach"})
  static final class Attach extends Operating implements Runnable {
    @Parameters(paramLabel = "CLUSTER", arity = "0..1", description = "an existing cluster to attach again") String existing;
    @Option(names = "--name", description = "the new cluster's name (lowercase, up to 63)") String name;
    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "the kubeconfig gShare uses") Path kubeconfig;
    @Option(names = "--session-domain", paramLabel = "DOMAIN", description = "sessions' URLs are https://DOMAIN/s/<id>/")
    String sessionDomain;
    @Option(names = "--ingress-node", paramLabel = "HOSTNAME", description = "the node the ingress runs on") String ingressNode;
    @Option(names = "--checkpoint-registry", paramLabel = "REGISTRY", description = "where lossless pauses keep checkpoints")
    String checkpointRegistry;

    @Override
    public void run() {
      GshareClient api = api();
      if (existing != null) {
        if (name != null || kubeconfig != null) {
          throw new picocli.CommandLine.ParameterException(spec.commandLine(),
              "attach an existing cluster by its name or id alone, or a new one with --name and --kubeconfig");
        }
        accepted(api, api.post(ApiPaths.cluster(resolve(api, existing)) + "/attach", null));
        return;
      }
      if (name == null || kubeconfig == null) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "a new cluster needs --name and --kubeconfig (or give an existing cluster to attach again)");
      }
      String config;
      try {
        config = Files.readString(kubeconfig);
      } catch (IOException e) {
        throw new CliException("cannot read the kubeconfig " + kubeconfig + ": " + e.getMessage(), e);
      }
      accepted(api, api.post(ApiPaths.CLUSTERS, new Cluster.NewCluster(name, config, sessionDomain, ingressNode,
          checkpointRegistry, null)));
    }
  }

  @Command(name = "test", mixinStandardHelpOptions = true,
      description = "Ask the cluster's worker to check its cluster: RuntimeClass nvidia, HAMi, ingress, GPU nodes.",
      footerHeading = "%nExamples:%n", footer = {"  gshare clusters test gpu-lab"})
  static final class Test extends CliCommand implements Runnable {
    @Parameters(paramLabel = "CLUSTER") String cluster;

    @Override
    public void run() {
      GshareClient api = api();
      JsonNode raw = api.post(ApiPaths.cluster(resolve(api, cluster)) + "/connection-test", Map.of());
      Cluster.ConnectionTest test = GshareClient.convert(raw, Cluster.ConnectionTest.class);
      print(raw, () -> {
        Table table = Table.of("CHECK", "OK");
        new TreeMap<>(test.checks()).forEach((check, ok) -> table.row(check, Boolean.TRUE.equals(ok) ? "yes" : "NO"));
        return table;
      });
      if (root().output() == OutputFormat.TABLE) {
        note(cluster + ": " + test.status() + (test.reason() == null ? "" : " — " + test.reason())
            + (test.gpuCount() == null ? "" : ", " + test.gpuCount() + " GPUs"));
      }
      if (!"connected".equals(test.status())) {
        throw new CliException("cluster " + cluster + " is " + test.status()
            + (test.reason() == null ? "" : ": " + test.reason()));
      }
    }
  }

  @Command(name = "rotate-token", mixinStandardHelpOptions = true,
      description = "Rotate the cluster's operator token now; done when its worker uses the new one.",
      footerHeading = "%nExamples:%n", footer = {"  gshare clusters rotate-token gpu-lab --wait"})
  static final class RotateToken extends Operating implements Runnable {
    @Parameters(paramLabel = "CLUSTER") String cluster;

    @Override
    public void run() {
      GshareClient api = api();
      accepted(api, api.post(ApiPaths.cluster(resolve(api, cluster)) + "/rotate-token", null));
    }
  }

  @Command(name = "detach", mixinStandardHelpOptions = true,
      description = "Detach a cluster: refused (409) while sessions run or GPUs are held on it.",
      footerHeading = "%nExamples:%n", footer = {"  gshare clusters detach gpu-lab --wait"})
  static final class Detach extends Operating implements Runnable {
    @Parameters(paramLabel = "CLUSTER") String cluster;

    @Override
    public void run() {
      GshareClient api = api();
      accepted(api, api.delete(ApiPaths.cluster(resolve(api, cluster))));
    }
  }
}
