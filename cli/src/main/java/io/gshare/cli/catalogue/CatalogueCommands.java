package io.gshare.cli.catalogue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.catalogue.ResourceCommands.Column;
import io.gshare.cli.operation.OperationFollower;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.operation.OperationRef;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The operators' catalogue: offerings, images, node pools, storage pools, policies and users. */
public final class CatalogueCommands {

  private CatalogueCommands() {}

  @Command(name = "offerings", aliases = "offering", mixinStandardHelpOptions = true,
      description = "What users can start: a GPU model, whole or sliced, at a price per hour (create/update: admins).",
      subcommands = {ResourceCommands.ListAll.class, ResourceCommands.Get.class, ResourceCommands.Create.class,
          ResourceCommands.Update.class, ResourceCommands.Delete.class},
      footerHeading = "%nExamples:%n", footer = {"  gshare offerings list",
          "  gshare offerings create --set name='H100 whole' --set gpu_model='NVIDIA H100 80GB HBM3' --set mode=whole"
              + " --set price_per_hour=4.5",
          "  gshare offerings update off_3x2z --set active=false"})
  public static final class Offerings implements ResourceCommands.Resource {
    @Override
    public String path() {
      return ApiPaths.OFFERINGS;
    }

    @Override
    public List<Column> columns() {
      return List.of(new Column("ID", "id"), new Column("NAME", "name"), new Column("GPU MODEL", "gpu_model"),
          new Column("MODE", "mode"), new Column("PRICE/H", "price_per_hour"), new Column("ACTIVE", "active"),
          new Column("CLUSTER HAS", "cluster_has"));
    }
  }

  @Command(name = "images", aliases = "image", mixinStandardHelpOptions = true,
      description = "Session images (create/update/pre-pull: admins).",
      subcommands = {ResourceCommands.ListAll.class, ResourceCommands.Get.class, ResourceCommands.Create.class,
          ResourceCommands.Update.class, ResourceCommands.Delete.class, Images.Prepull.class},
      footerHeading = "%nExamples:%n", footer = {"  gshare images list",
          "  gshare images create --set name=pytorch --set reference=registry.example.com/ml/pytorch:2.5",
          "  gshare images prepull img_4cqx --wait"})
  public static final class Images implements ResourceCommands.Resource {
    @Override
    public String path() {
      return ApiPaths.IMAGES;
    }

    @Override
    public List<Column> columns() {
      return List.of(new Column("ID", "id"), new Column("NAME", "name"), new Column("REFERENCE", "reference"),
          new Column("PORT", "port"), new Column("ACTIVE", "active"));
    }

    record PrepullBody(List<String> clusterIds, List<String> nodeIds) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record PrepullAccepted(OperationRef operation) {}

    @Command(name = "prepull", mixinStandardHelpOptions = true,
        description = "Pull an image onto GPU nodes ahead of the first session that needs it.",
        footerHeading = "%nExamples:%n", footer = {"  gshare images prepull img_4cqx --wait",
            "  gshare images prepull img_4cqx --cluster clu_94hq"})
    static final class Prepull extends CliCommand implements Runnable {
      @Parameters(paramLabel = "IMAGE_ID") String id;
      @Option(names = "--cluster", paramLabel = "ID", description = "only this cluster's nodes (repeatable)")
      List<String> clusters = new ArrayList<>();
      @Option(names = "--node", paramLabel = "ID", description = "only these nodes (repeatable)")
      List<String> nodes = new ArrayList<>();
      @Option(names = "--wait", description = "follow the pulls until they end") boolean wait;
      @Option(names = "--timeout", defaultValue = "PT30M", paramLabel = "DURATION",
          description = "how long --wait waits (ISO-8601, default ${DEFAULT-VALUE})")
      Duration timeout;

      @Override
      public void run() {
        GshareClient api = api();
        JsonNode raw = api.post(ApiPaths.image(id) + "/prepull",
            new PrepullBody(clusters.isEmpty() ? null : clusters, nodes.isEmpty() ? null : nodes));
        OperationRef operation = GshareClient.convert(raw, PrepullAccepted.class).operation();
        OperationFollower.followOrAnnounce(env(), api, operation, wait, timeout);
        print(raw, () -> Table.of("IMAGE", "OPERATION").row(id, operation == null ? null : operation.id()));
      }
    }
  }

  @Command(name = "pools", aliases = {"node-pools", "pool"}, mixinStandardHelpOptions = true,
      description = "Node pools: nodes dedicated to a team (admins).",
      subcommands = {ResourceCommands.ListAll.class, ResourceCommands.Get.class, ResourceCommands.Create.class,
          ResourceCommands.Update.class, ResourceCommands.Delete.class, NodePools.SetNodes.class},
      footerHeading = "%nExamples:%n", footer = {"  gshare pools create --set name=vision --set team_id=team_4k2d",
          "  gshare pools set-nodes npl_8d2k nod_2yy5 nod_71kx"})
  public static final class NodePools implements ResourceCommands.Resource {
    @Override
    public String path() {
      return ApiPaths.NODE_POOLS;
    }

    @Override
    public List<Column> columns() {
      return List.of(new Column("ID", "id"), new Column("NAME", "name"), new Column("TEAM", "team_id"),
          new Column("NODES", "node_ids"), new Column("DESCRIPTION", "description"));
    }

    record PoolNodes(List<String> nodeIds) {}

    @Command(name = "set-nodes", mixinStandardHelpOptions = true, description = "Make these nodes the pool's nodes.",
        footerHeading = "%nExamples:%n", footer = {"  gshare pools set-nodes npl_8d2k nod_2yy5 nod_71kx"})
    static final class SetNodes extends CliCommand implements Runnable {
      @Parameters(index = "0", paramLabel = "POOL_ID") String id;
      @Parameters(index = "1..*", paramLabel = "NODE_ID", arity = "0..*") List<String> nodes = new ArrayList<>();

      @Override
      public void run() {
        JsonNode raw = api().put(ApiPaths.nodePool(id) + "/nodes", new PoolNodes(nodes));
        print(raw, () -> Table.of("POOL", "NODES").row(id, String.join(",", nodes)));
      }
    }
  }

  @Command(name = "storage-pools", aliases = "storage-pool", mixinStandardHelpOptions = true,
      description = "Storage pools volumes are made in (admins).",
      subcommands = {ResourceCommands.ListAll.class, ResourceCommands.Get.class, ResourceCommands.Create.class,
          ResourceCommands.Update.class, ResourceCommands.Delete.class},
      footerHeading = "%nExamples:%n", footer = {"  gshare storage-pools list",
          "  gshare storage-pools create -f nfs-pool.yaml"})
  public static final class StoragePools implements ResourceCommands.Resource {
    @Override
    public String path() {
      return ApiPaths.STORAGE_POOLS;
    }

    @Override
    public List<Column> columns() {
      return List.of(new Column("ID", "id"), new Column("NAME", "name"), new Column("STORAGE CLASS", "storage_class"),
          new Column("SCOPE", "scope"), new Column("TOTAL GB", "total_gb"), new Column("FREE GB", "free_gb"),
          new Column("DEFAULT", "is_default"));
    }
  }

  @Command(name = "users", aliases = "user", mixinStandardHelpOptions = true,
      description = "Users (admins): create, list, change role or team, disable (update --set disabled=true).",
      subcommands = {ResourceCommands.ListAll.class, ResourceCommands.Get.class, ResourceCommands.Create.class,
          ResourceCommands.Update.class},
      footerHeading = "%nExamples:%n", footer = {"  gshare users create --set email=ada@example.com --set role=admin",
          "  gshare users update usr_61sc --set disabled=true"})
  public static final class Users implements ResourceCommands.Resource {
    @Override
    public String path() {
      return ApiPaths.USERS;
    }

    @Override
    public List<Column> columns() {
      return List.of(new Column("ID", "id"), new Column("EMAIL", "email"), new Column("NAME", "display_name"),
          new Column("ROLE", "role"), new Column("TEAM", "team_id"), new Column("DISABLED", "disabled"));
    }
  }

  @Command(name = "policies", aliases = "policy", mixinStandardHelpOptions = true,
      description = "Usage policies: the default one, or a team's (concurrency, runtime, idle timeout, quotas).",
      subcommands = {Policies.Get.class, Policies.Set.class, Policies.Reset.class},
      footerHeading = "%nExamples:%n", footer = {"  gshare policies get", "  gshare policies get --team team_4k2d",
          "  gshare policies set --team team_4k2d --set max_concurrent_sessions=4 --set idle_timeout_minutes=60"})
  public static final class Policies {

    static String path(String team) {
      return team == null ? ApiPaths.DEFAULT_POLICY : ApiPaths.teamPolicy(team);
    }

    static Table table(JsonNode policy) {
      Table table = Table.of("SETTING", "VALUE");
      policy.fields().forEachRemaining(f -> table.row(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText()));
      return table;
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "The default policy, or a team's.")
    static final class Get extends CliCommand implements Runnable {
      @Option(names = "--team", paramLabel = "TEAM_ID") String team;

      @Override
      public void run() {
        JsonNode raw = api().get(path(team));
        print(raw, () -> table(raw));
      }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
        description = "Replace the default policy, or a team's, with a file and/or --set pairs (PUT).")
    static final class Set extends CliCommand implements Runnable {
      @Option(names = "--team", paramLabel = "TEAM_ID") String team;
      @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "the policy, JSON or YAML ('-': stdin)")
      Path file;
      @Option(names = "--set", paramLabel = "NAME=VALUE", description = "one setting (repeatable)")
      List<String> sets = new ArrayList<>();

      @Override
      public void run() {
        JsonNode raw = api().put(path(team), Document.of(file, sets, System.in));
        print(raw, () -> table(raw));
      }
    }

    @Command(name = "reset", mixinStandardHelpOptions = true,
        description = "Remove a team's own policy: the default applies to it again.")
    static final class Reset extends CliCommand implements Runnable {
      @Option(names = "--team", required = true, paramLabel = "TEAM_ID") String team;

      @Override
      public void run() {
        api().delete(path(team));
        note("team " + team + " follows the default policy");
      }
    }
  }
}
