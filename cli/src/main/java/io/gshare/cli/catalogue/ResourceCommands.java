package io.gshare.cli.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.support.Json;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * list, get, create, update and delete for the operators' catalogue (offerings, images, pools, ...): each resource
 * says where it lives and which members make its table; the subcommands are the same for all.
 */
final class ResourceCommands {

  private ResourceCommands() {}

  /** One kind of catalogue object: its collection path, and its table's columns (header, member). */
  interface Resource {
    String path();

    List<Column> columns();
  }

  record Column(String header, String member) {}

  static Table table(Resource resource, JsonNode items) {
    Table table = Table.of(resource.columns().stream().map(Column::header).toArray(String[]::new));
    for (JsonNode item : items) {
      table.row(resource.columns().stream().map(c -> cell(item.path(c.member()))).toArray());
    }
    return table;
  }

  private static String cell(JsonNode value) {
    if (value.isMissingNode() || value.isNull()) {
      return null;
    }
    if (value.isArray()) {
      List<String> parts = new ArrayList<>();
      value.forEach(v -> parts.add(v.asText()));
      return String.join(",", parts);
    }
    return value.isValueNode() ? value.asText() : value.toString();
  }

  abstract static class Base extends CliCommand {
    Resource resource() {
      return (Resource) spec.parent().userObject();
    }

    String one(String id) {
      return resource().path() + "/" + ApiPaths.segment(id);
    }

    void show(JsonNode raw) {
      JsonNode items = raw.has("items") ? raw.get("items") : raw.isArray() ? raw : wrap(raw);
      print(raw, () -> table(resource(), items));
    }

    private static JsonNode wrap(JsonNode one) {
      return Json.MAPPER.createArrayNode().add(one);
    }
  }

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true, description = "All of them.")
  static final class ListAll extends Base implements Runnable {
    @Override
    public void run() {
      show(api().get(resource().path()));
    }
  }

  @Command(name = "get", mixinStandardHelpOptions = true, description = "One, by id.")
  static final class Get extends Base implements Runnable {
    @Parameters(paramLabel = "ID") String id;

    @Override
    public void run() {
      show(api().get(one(id)));
    }
  }

  /** The body options of create and update. */
  abstract static class Writing extends Base {
    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "the body, JSON or YAML ('-': stdin)")
    Path file;
    @Option(names = "--set", paramLabel = "NAME=VALUE", description = "a member of the body (repeatable)")
    List<String> sets = new ArrayList<>();

    JsonNode body() {
      return Document.of(file, sets, System.in);
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create one from a file and/or --set pairs.")
  static final class Create extends Writing implements Runnable {
    @Override
    public void run() {
      show(api().post(resource().path(), body()));
    }
  }

  @Command(name = "update", mixinStandardHelpOptions = true, description = "Change members of one (PATCH).")
  static final class Update extends Writing implements Runnable {
    @Parameters(paramLabel = "ID") String id;

    @Override
    public void run() {
      show(api().patch(one(id), body()));
    }
  }

  @Command(name = "delete", aliases = "rm", mixinStandardHelpOptions = true, description = "Delete one.")
  static final class Delete extends Base implements Runnable {
    @Parameters(paramLabel = "ID") String id;

    @Override
    public void run() {
      api().delete(one(id));
      note(id + " deleted");
    }
  }
}
