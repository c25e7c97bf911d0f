package io.gshare.cli.volume;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.volume.Volume;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gshare volumes}: a user's quota'd volumes. */
@Command(name = "volumes", aliases = "volume", mixinStandardHelpOptions = true,
    description = "Volumes that keep your files across sessions: create, list, delete, restore, expand.",
    subcommands = {VolumesCommand.Create.class, VolumesCommand.ListVolumes.class, VolumesCommand.Get.class,
        VolumesCommand.Delete.class, VolumesCommand.Restore.class, VolumesCommand.Expand.class})
public final class VolumesCommand {


  static Table table(List<Volume> volumes) {
    Table table = Table.of("ID", "NAME", "SIZE", "USED", "STATUS", "POOL", "RECLAIM AFTER");
    volumes.forEach(v -> table.row(v.id(), v.name(), v.sizeGb() == null ? null : v.sizeGb() + " GB",
        v.usedBytes() == null ? null : String.format("%.1f GB", v.usedBytes() / 1e9), v.status(), v.poolId(),
        v.reclaimAfter()));
    return table;
  }

  abstract static class One extends CliCommand implements Runnable {
    @Parameters(paramLabel = "VOLUME_ID") String id;

    String path() {
      return ApiPaths.volume(id);
    }

    void show(JsonNode raw) {
      print(raw, () -> table(List.of(GshareClient.convert(raw, Volume.class))));
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a volume.",
      footerHeading = "%nExamples:%n", footer = {"  gshare volumes create --name datasets --size 100"})
  static final class Create extends CliCommand implements Runnable {
    @Option(names = "--name", required = true, description = "its name") String name;
    @Option(names = "--size", paramLabel = "GIB", required = true, description = "size in GiB, 1 to 100000") Integer size;
    @Option(names = "--pool", paramLabel = "ID", description = "the storage pool; default: the default pool") String pool;

    @Override
    public void run() {
      JsonNode raw = api().post(ApiPaths.VOLUMES, new Volume.NewVolume(name, size, pool));
      print(raw, () -> table(List.of(GshareClient.convert(raw, Volume.class))));
    }
  }

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true, description = "Your volumes, newest first.",
      footerHeading = "%nExamples:%n", footer = {"  gshare volumes list", "  gshare volumes list --user usr_61sc -o json"})
  static final class ListVolumes extends CliCommand implements Runnable {
    @Option(names = "--user", paramLabel = "ID", description = "admins: this user's volumes") String user;

    @Override
    public void run() {
      JsonNode raw = api().get(ApiPaths.query(ApiPaths.VOLUMES, "user_id", user));
      print(raw, () -> table(GshareClient.convert(raw, Volume.VolumeList.class).items()));
    }
  }

  @Command(name = "get", mixinStandardHelpOptions = true, description = "One volume: size, status, use.",
      footerHeading = "%nExamples:%n", footer = {"  gshare volumes get vol_9k2d -o yaml"})
  static final class Get extends One {
    @Override
    public void run() {
      show(api().get(path()));
    }
  }

  @Command(name = "delete", aliases = "rm", mixinStandardHelpOptions = true,
      description = "Delete a volume: restorable until its reclaim time, then its data is gone.",
      footerHeading = "%nExamples:%n", footer = {"  gshare volumes delete vol_9k2d"})
  static final class Delete extends One {
    @Override
    public void run() {
      show(api().delete(path()));
    }
  }

  @Command(name = "restore", mixinStandardHelpOptions = true, description = "Restore a deleted volume before its reclaim time.",
      footerHeading = "%nExamples:%n", footer = {"  gshare volumes restore vol_9k2d"})
  static final class Restore extends One {
    @Override
    public void run() {
      show(api().post(path() + "/restore", null));
    }
  }

  @Command(name = "expand", mixinStandardHelpOptions = true,
      description = "Ask for a larger size; an admin approves it (gshare volumes get shows the request).",
      footerHeading = "%nExamples:%n", footer = {"  gshare volumes expand vol_9k2d --size 200"})
  static final class Expand extends One {
    @Option(names = "--size", required = true, paramLabel = "GB", description = "the size wanted, in GB") int size;

    @Override
    public void run() {
      JsonNode raw = api().post(path() + "/expansion", new Volume.ExpansionInput(size));
      print(raw, () -> Table.of("VOLUME", "REQUESTED").row(id, size + " GB"));
    }
  }
}
