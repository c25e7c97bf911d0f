package io.gshare.cli.node;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.node.Node;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gshare gpus}: GPU cards, and keeping placement off a bad one (operators). */
@Command(name = "gpus", aliases = "gpu", mixinStandardHelpOptions = true,
    description = "GPU cards (admins): list, cordon (placement skips it), uncordon.",
    subcommands = {GpusCommand.ListGpus.class, GpusCommand.Cordon.class, GpusCommand.Uncordon.class})
public final class GpusCommand {

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true, description = "Every GPU, where it is.",
      footerHeading = "%nExamples:%n", footer = {"  gshare gpus list --model 'NVIDIA H100 80GB HBM3'"})
  static final class ListGpus extends CliCommand implements Runnable {
    @Option(names = "--model") String model;
    @Option(names = "--node", paramLabel = "ID") String node;
    @Option(names = "--cluster", paramLabel = "ID") String cluster;

    @Override
    public void run() {
      JsonNode raw = api().get(ApiPaths.query(ApiPaths.GPUS, "model", model, "node_id", node, "cluster_id", cluster));
      print(raw, () -> {
        Table table = Table.of("UUID", "MODEL", "NODE", "INDEX", "HEALTHY", "CORDONED");
        GshareClient.convert(raw, Node.GpuList.class).items().forEach(g -> table.row(g.uuid(), g.model(), g.hostname(),
            g.index(), Boolean.TRUE.equals(g.healthy()) ? "yes" : "NO", Boolean.TRUE.equals(g.cordoned()) ? "yes" : "no"));
        return table;
      });
    }
  }

  abstract static class OneGpu extends CliCommand implements Runnable {
    @Parameters(paramLabel = "GPU_UUID") String uuid;

    void post(String action) {
      JsonNode raw = api().post(ApiPaths.gpu(uuid) + "/" + action, null);
      print(raw, () -> Table.of("GPU", "DONE").row(uuid, action));
    }
  }

  @Command(name = "cordon", mixinStandardHelpOptions = true,
      description = "Keep placement off a GPU; sessions on it keep running. Idempotent.",
      footerHeading = "%nExamples:%n", footer = {"  gshare gpus cordon GPU-fc361e85-c7a2-39cf-907b-f49d39f74453"})
  static final class Cordon extends OneGpu {
    @Override
    public void run() {
      post("cordon");
    }
  }

  @Command(name = "uncordon", mixinStandardHelpOptions = true, description = "Let placement use a GPU again. Idempotent.",
      footerHeading = "%nExamples:%n", footer = {"  gshare gpus uncordon GPU-fc361e85-c7a2-39cf-907b-f49d39f74453"})
  static final class Uncordon extends OneGpu {
    @Override
    public void run() {
      post("uncordon");
    }
  }
}
