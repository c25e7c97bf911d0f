package io.gshare.cli.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gshare.cli.CliCommand;
import io.gshare.cli.operation.StepsPrinter;
import io.gshare.cli.support.CliException;
import io.gshare.cli.support.Json;
import io.gshare.cli.support.Table;
import io.gshare.client.ApiPaths;
import io.gshare.client.GshareClient;
import io.gshare.client.operation.OperationList;
import io.gshare.client.session.NewSession;
import io.gshare.client.session.Session;
import io.gshare.client.session.SessionDetail;
import io.gshare.client.session.SessionList;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gshare sessions}: a user's GPU sessions, start to end. */
@Command(name = "sessions", aliases = "session", mixinStandardHelpOptions = true,
    description = "GPU sessions: create, list, pause, resume, open, delete.",
    subcommands = {SessionsCommand.Create.class, SessionsCommand.ListSessions.class, SessionsCommand.Get.class,
        SessionsCommand.Pause.class, SessionsCommand.Resume.class, SessionsCommand.Delete.class,
        SessionsCommand.Open.class, SessionsCommand.Wait.class, SessionsCommand.Logs.class})
public final class SessionsCommand {


  static String path(String id) {
    return ApiPaths.session(id);
  }

  /** The one-row table every session command prints. */
  static Table table(Iterable<Session> sessions) {
    Table table = Table.of("ID", "NAME", "STATE", "GPU", "CLUSTER", "NODE", "URL");
    for (Session s : sessions) {
      table.row(s.id(), s.name(), s.state(), s.gpuModel() == null ? null : s.gpuModel() + " (" + s.mode() + ")",
          s.clusterName(), s.nodeHostname(), s.url());
    }
    return table;
  }

  /** Options of the commands that can wait for the session to settle. */
  static class Waiting extends CliCommand {
    @Option(names = "--wait", description = "follow the session's steps until it settles")
    boolean wait;

    @Option(names = "--timeout", defaultValue = "PT15M", paramLabel = "DURATION",
        description = "how long --wait waits (ISO-8601, default ${DEFAULT-VALUE})")
    Duration timeout;

    /** Prints the session, after waiting for {@code wanted} when asked to. */
    void finish(GshareClient api, String id, JsonNode answer, Set<Session.State> wanted) {
      JsonNode shown = answer;
      if (wait) {
        new SessionWatcher(api, env().pollInterval(), new StepsPrinter(terminal())).until(id, wanted, timeout);
        shown = api.get(path(id));
      }
      SessionDetail detail = GshareClient.convert(shown, SessionDetail.class);
      print(shown, () -> table(List.of(detail.session())));
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Start a session.",
      footerHeading = "%nExamples:%n", footer = {
          "  gshare sessions create --offering off_3x2z2d8gwp1azm6s --image img_4cqxamvvbh94zye4 --wait",
          "  gshare sessions create --offering off_3x2z --image img_4cqx --volume vol_9k2d --name training -o json"})
  static final class Create extends Waiting implements Runnable {
    @Option(names = "--offering", required = true, paramLabel = "ID", description = "the offering (gshare offerings list)")
    String offering;
    @Option(names = "--image", required = true, paramLabel = "ID", description = "the image (gshare images list)")
    String image;
    @Option(names = "--volume", paramLabel = "ID", description = "a volume of yours to mount at the home directory")
    String volume;
    @Option(names = "--name", description = "a name to know it by (up to 100 characters)")
    String name;
    @Option(names = "--cluster", paramLabel = "ID", description = "run on this cluster only; default: wherever it fits")
    String cluster;

    @Override
    public void run() {
      GshareClient api = api();
      JsonNode created = api.post(ApiPaths.SESSIONS, new NewSession(offering, image, volume, name, cluster));
      String id = GshareClient.convert(created, SessionDetail.class).session().id();
      if (wait) {
        note("session " + id + " created; waiting until it runs");
      }
      finish(api, id, created, EnumSet.of(Session.State.RUNNING));
    }
  }

  @Command(name = "list", aliases = "ls", mixinStandardHelpOptions = true,
      description = "Your sessions, newest first (admins: everyone's, with filters).",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions list", "  gshare sessions list --state running -o json",
          "  gshare sessions list --cluster clu_94hq --no-headers"})
  static final class ListSessions extends CliCommand implements Runnable {
    @Option(names = "--state", description = "only sessions in this state (running, paused, ...)") String state;
    @Option(names = "--cluster", paramLabel = "ID", description = "admins: only on this cluster") String cluster;
    @Option(names = "--node", paramLabel = "ID", description = "admins: only on this node") String node;
    @Option(names = "--user", paramLabel = "ID", description = "admins: only this user's") String user;
    @Option(names = "--limit", defaultValue = "100", description = "at most this many (1-1000, default ${DEFAULT-VALUE})")
    int limit;

    @Override
    public void run() {
      JsonNode raw = api().get(ApiPaths.query(ApiPaths.SESSIONS, "state", state, "cluster_id", cluster, "node_id", node,
          "user_id", user, "limit", limit));
      SessionList list = GshareClient.convert(raw, SessionList.class);
      print(raw, () -> table(list.items()));
    }
  }

  @Command(name = "get", mixinStandardHelpOptions = true,
      description = "One session: state, GPUs, cost so far, the current command's steps.",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions get ses_0f3a2b", "  gshare sessions get ses_0f3a2b -o yaml"})
  static final class Get extends CliCommand implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;

    @Override
    public void run() {
      JsonNode raw = api().get(path(id));
      SessionDetail detail = GshareClient.convert(raw, SessionDetail.class);
      print(raw, () -> {
        Session s = detail.session();
        Table table = Table.of("FIELD", "VALUE")
            .row("id", s.id()).row("name", s.name()).row("state", s.state()).row("reason", s.stateReason())
            .row("gpu", s.gpuModel() == null ? null : s.gpuModel() + " (" + s.mode() + ")")
            .row("cluster", s.clusterName()).row("node", s.nodeHostname()).row("image", s.imageReference())
            .row("volume", s.volumeId()).row("url", s.url()).row("price/hour", s.pricePerHour())
            .row("cost so far", detail.costSoFar()).row("created", s.createdAt()).row("started", s.startedAt())
            .row("ended", s.endedAt());
        if (detail.warning() != null) {
          table.row("warning", detail.warning());
        }
        if (detail.operation() != null) {
          detail.operation().steps().forEach(step -> table.row("step " + step.name(),
              step.status() + (step.detail() == null ? "" : ": " + step.detail())));
        }
        return table;
      });
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Pause a session: its GPUs are released and billing stops; resume brings it back.",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions pause ses_0f3a2b --wait"})
  static final class Pause extends Waiting implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;

    @Override
    public void run() {
      GshareClient api = api();
      finish(api, id, api.post(path(id) + "/pause", null), EnumSet.of(Session.State.PAUSED));
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "Resume a paused session on the same GPU model; billing starts again.",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions resume ses_0f3a2b --wait"})
  static final class Resume extends Waiting implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;

    @Override
    public void run() {
      GshareClient api = api();
      finish(api, id, api.post(path(id) + "/resume", null), EnumSet.of(Session.State.RUNNING));
    }
  }

  @Command(name = "delete", aliases = "rm", mixinStandardHelpOptions = true,
      description = "End a session: its objects are deleted and billing settled; its history stays.",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions delete ses_0f3a2b --wait"})
  static final class Delete extends Waiting implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;

    @Override
    public void run() {
      GshareClient api = api();
      finish(api, id, api.delete(path(id)), EnumSet.of(Session.State.TERMINATED));
    }
  }

  @Command(name = "open", mixinStandardHelpOptions = true,
      description = "Open a running session's URL in the browser, or print it (--print, or where no browser is).",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions open ses_0f3a2b", "  gshare sessions open ses_0f3a2b --print"})
  static final class Open extends CliCommand implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;
    @Option(names = "--print", description = "print the URL only") boolean printOnly;

    @Override
    public void run() {
      Session session = api().get(path(id), SessionDetail.class).session();
      if (session.url() == null || session.stateValue() != Session.State.RUNNING) {
        throw new CliException("session " + id + " is " + session.state() + "; it has a URL to open once it runs"
            + (session.stateValue() == Session.State.PAUSED ? " (gshare sessions resume " + id + " --wait)" : ""));
      }
      if (!printOnly && env().browser().open(URI.create(session.url()))) {
        note("opened " + session.url());
        return;
      }
      terminal().out().println(session.url());
      terminal().out().flush();
    }
  }

  @Command(name = "wait", mixinStandardHelpOptions = true,
      description = "Wait until a session is in a state, showing its steps meanwhile; exit 1 if it ends otherwise.",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions wait ses_0f3a2b --for running --timeout PT10M"})
  static final class Wait extends CliCommand implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;
    @Option(names = "--for", required = true, paramLabel = "STATE",
        description = "running, paused or terminated (any of ${COMPLETION-CANDIDATES})")
    Session.State state;
    @Option(names = "--timeout", defaultValue = "PT15M", paramLabel = "DURATION",
        description = "give up after this long (ISO-8601, default ${DEFAULT-VALUE})")
    Duration timeout;

    @Override
    public void run() {
      GshareClient api = api();
      new SessionWatcher(api, env().pollInterval(), new StepsPrinter(terminal())).until(id, EnumSet.of(state), timeout);
      JsonNode raw = api.get(path(id));
      print(raw, () -> table(List.of(GshareClient.convert(raw, SessionDetail.class).session())));
    }
  }

  @Command(name = "logs", mixinStandardHelpOptions = true,
      description = "The steps of the session's current (or last) command, and every workflow run on it with its"
          + " trace in the Temporal Web UI.",
      footerHeading = "%nExamples:%n", footer = {"  gshare sessions logs ses_0f3a2b", "  gshare sessions logs ses_0f3a2b -o json"})
  static final class Logs extends CliCommand implements Runnable {
    @Parameters(paramLabel = "SESSION_ID") String id;

    @Override
    public void run() {
      GshareClient api = api();
      JsonNode detailRaw = api.get(path(id));
      SessionDetail detail = GshareClient.convert(detailRaw, SessionDetail.class);
      JsonNode runsRaw = api.get(ApiPaths.query(ApiPaths.OPERATIONS, "object_kind", "session", "object_id", id));
      OperationList runs = GshareClient.convert(runsRaw, OperationList.class);
      ObjectNode all = Json.MAPPER.createObjectNode();
      all.put("session_id", id);
      all.set("operation", detailRaw.path("operation"));
      all.set("runs", runsRaw.path("items"));
      print(all, () -> {
        Table table = Table.of("WHAT", "STATUS", "DETAIL");
        if (detail.operation() != null) {
          detail.operation().steps().forEach(s -> table.row(detail.operation().kind() + ": " + s.name(), s.status(),
              s.detail()));
        }
        runs.items().forEach(r -> table.row("run " + r.type() + " " + r.startedAt(), r.status(), r.temporalUiUrl()));
        return table;
      });
    }
  }
}
