package io.gshare.cli.node;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.operation.OperationFollower;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.node.Node;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gshare nodes}: GPU nodes, their drains and their removal (operators). */
@Command(name = "nodes", aliases = "node", mixinStandardHelpOptions = true,
    description = "GPU nodes (admins): list, drain, uncordon, delete.",
    subcommands = {NodesCommand.ListNodes.class, NodesCommand.Drain.class, NodesCommand.Uncordon.class,
        NodesCommand.Delete.class})
public final class NodesCommand {


  /** A node named by id ({@code nod_...}) or by hostname. */
  static String resolve(GshareClient api, String idOrHostname) {
    if (idOrHostname.startsWith("nod_")) {
      return idOrHostname;
    }
    List<Node> named = api.get(ApiPaths.NODES, Node.NodeList.class).items().stream()
        .filter(n -> idOrHostname.equals(n.hostname())).toList();
    if (named.size() != 1) {
      throw new CliException(named.isEmpty() ? "no node with hostname '" + idOrHostname + "' (gshare nodes list)"
          : named.size() + " nodes have hostname '" + idOrHostname + "' (one per cluster); give its id");
    }
    return named.get(0).id();
  }

  abstract static class Operating extends CliCommand {
    @Parameters(paramLabel = "NODE", description = "the node's id or hostname") String node;
    @Option(names = "--wait", description = "follow the operation's steps until it ends") boolean wait;
    @Option(names = "--timeout", defaultValue = "PT30M", paramLabel = "DURATION",
        description = "how long --wait waits (ISO-8601, default ${DEFAULT-VALUE})")
    Duration timeout;

    void accepted(GshareClient api, JsonNode raw) {
      Node.Accepted accepted = GshareClient.convert(raw, Node.Accepted.class);
      OperationFollower.followOrAnnounce(env(), api, accepted.operation(), wait, timeout);
      print(raw, () -> Table.of("NODE", "HOSTNAME", "CLUSTER", "OPERATION").row(accepted.node().nodeId(),
          accepted.node().hostname(), accepted.node().clusterId(), accepted.operation().id()));
    }
  }

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true, description = "Nodes and their GPUs.",
      footerHeading = "%nExamples:%n", footer = {"  gshare nodes list", "  gshare nodes list --cluster clu_94hq --liveness offline"})
  static final class ListNodes extends CliCommand implements Runnable {
    @Option(names = "--cluster", paramLabel = "ID") String cluster;
    @Option(names = "--pool", paramLabel = "ID") String pool;
    @Option(names = "--liveness", description = "ready, not_ready or offline") String liveness;
    @Option(names = "--include-removed", description = "deleted nodes too") boolean removed;

    @Override
    public void run() {
      JsonNode raw = api().get(ApiPaths.query(ApiPaths.NODES, "cluster_id", cluster, "pool_id", pool, "liveness", liveness,
          "include_removed", removed ? "true" : null));
      print(raw, () -> {
        Table table = Table.of("ID", "HOSTNAME", "CLUSTER", "LIVENESS", "MODE", "SCHEDULABLE", "DRAIN", "GPUS");
        GshareClient.convert(raw, Node.NodeList.class).items().forEach(n -> table.row(n.id(), n.hostname(),
            n.clusterId(), n.liveness(), n.gpuMode(), Boolean.TRUE.equals(n.schedulable()) ? "yes" : "no",
            n.drainState(), n.gpus().isEmpty() ? "0" : n.gpus().size() + "x " + n.gpus().get(0).model()));
        return table;
      });
    }
  }

  @Command(name = "drain", mixinStandardHelpOptions = true,
      description = "Drain a node: cordon it, move its sessions elsewhere (or pause or end them), evict the rest.",
      footerHeading = "%nExamples:%n", footer = {"  gshare nodes drain sim-h100-0 --wait",
          "  gshare nodes drain nod_2yy5 --mode pause --deadline 600 --reason 'driver upgrade'"})
  static final class Drain extends Operating implements Runnable {
    @Option(names = "--mode", description = "migrate (default), pause or terminate the sessions on it") String mode;
    @Option(names = "--deadline", paramLabel = "SECONDS", description = "end what has not moved by then") Long deadline;
    @Option(names = "--reason", description = "why, shown to the users whose sessions move") String reason;

    @Override
    public void run() {
      GshareClient api = api();
      accepted(api, api.post(ApiPaths.node(resolve(api, node)) + "/drain",
          new Node.DrainBody(mode, deadline, reason)));
    }
  }

  @Command(name = "uncordon", mixinStandardHelpOptions = true,
      description = "Undo a drain: stop one under way and make the node schedulable again.",
      footerHeading = "%nExamples:%n", footer = {"  gshare nodes uncordon sim-h100-0 --wait"})
  static final class Uncordon extends Operating implements Runnable {
    @Override
    public void run() {
      GshareClient api = api();
      accepted(api, api.post(ApiPaths.node(resolve(api, node)) + "/uncordon", null));
    }
  }

  @Command(name = "delete", aliases = "rm", mixinStandardHelpOptions = true,
      description = "Delete an offline node and its GPU records (billing history stays); refused (409) while its"
          + " worker still reports it or sessions are on it.",
      footerHeading = "%nExamples:%n", footer = {"  gshare nodes delete nod_2yy5"})
  static final class Delete extends CliCommand implements Runnable {
    @Parameters(paramLabel = "NODE", description = "the node's id or hostname") String node;

    @Override
    public void run() {
      GshareClient api = api();
      String id = resolve(api, node);
      api.delete(ApiPaths.node(id));
      note("node " + id + " deleted");
    }
  }
}
