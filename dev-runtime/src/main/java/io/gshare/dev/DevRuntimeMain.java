package io.gshare.dev;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.gshare.client.ApiJson;
import io.gshare.client.ApiPaths;
import io.gshare.client.cluster.Cluster;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code make dev}: starts the dev runtime, says where everything listens, stops on Ctrl-C. */
public final class DevRuntimeMain {

  private DevRuntimeMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(DevRuntimeOptions.USAGE);
      return;
    }
    DevRuntimeOptions options;
    try {
      options = DevRuntimeOptions.parse(args, System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("gshare-dev: " + e.getMessage());
      System.err.println(DevRuntimeOptions.USAGE);
      System.exit(2);
      return;
    }

    DevRuntime runtime = DevRuntime.start(options);
    AtomicBoolean stopping = new AtomicBoolean();
    Thread shutdown = new Thread(() -> {
      stopping.set(true);
      System.out.println("gshare-dev: stopping...");
      runtime.close();
    }, "gshare-dev-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);

    Cluster.ConnectionTest test = runtime.connectionTest(runtime.clusters().get(0).id());
    System.out.println(banner(runtime, test));

    // An api that exits is restarted, as its Deployment would restart it; one in a crash loop takes the runtime
    // down (a half-running dev runtime only confuses), and with it the cluster-workers it started.
    while (!stopping.get()) {
      ChildProcess dead = runtime.deadChild();
      if (dead != null && !stopping.get()) {
        System.err.println("gshare-dev: the " + dead.name() + " process keeps exiting (code " + dead.process().exitValue()
            + "); stopping everything");
        System.exit(1);
      }
      Thread.sleep(1000);
    }
  }

  static String banner(DevRuntime runtime, Cluster.ConnectionTest test) {
    String api = runtime.apiUrl();
    StringBuilder clusters = new StringBuilder();
    for (DevRuntime.AttachedCluster c : runtime.clusters()) {
      clusters.append("""
           cluster        %s (%s): %s at %s
                          sessions at %s/s/<id>/%s
                          kubeconfig %s
          """.formatted(c.id(), c.name(), c.apiKind(), c.apiUrl(), runtime.sessionOrigin(c),
              runtime.hasIngress() ? " (nginx as its ingress)" : " (--no-ingress: they open nowhere)", c.kubeconfig()));
      clusters.append("                kubectl --kubeconfig %s version   # Server Version: %s\n"
          .formatted(c.kubeconfig(), c.kube().kubernetes().serverVersion()));
    }
    String first = runtime.clusters().get(0).id();
    return """

        ============================================================================
         gShare dev runtime is up (simulated GPUs on KWOK nodes: no real hardware)
        ----------------------------------------------------------------------------
         console        %s/   sign in: %s
                        (the embedded identity provider %s: type any user name, and in
                        its claims {"email":"ada@example.com","%s":["%s"]} for an admin)
         api            %s   (health %s/healthz, metrics %s/actuator/prometheus)
        %s Temporal       %s   (Web UI %s)
         PostgreSQL     %s
         data           %s
        %s first cluster's connection test: %s, %d GPUs, checks %s
        ----------------------------------------------------------------------------
         Try (a super admin's token; hack/bootstrap-superadmin.sh prints another):
           export TOKEN=$(cat %s)
           curl -s %s/healthz
           curl -s %s/api/v1/system -H "Authorization: Bearer $TOKEN"
           curl -s %s/api/v1/clusters -H "Authorization: Bearer $TOKEN"
           curl -s -XPOST %s/api/v1/clusters/%s/connection-test -H "Authorization: Bearer $TOKEN" \\
                -H 'Content-Type: application/json' -d '{}'
           curl -s %s/api/v1/nodes -H "Authorization: Bearer $TOKEN"
           curl -s %s/.well-known/gshare-internal-jwks.json
           kubectl --kubeconfig %s get nodes
           .tools/bin/temporal workflow list --address %s --query "GshareClusterId='%s'"
           .tools/bin/temporal schedule list --address %s
        %s Ctrl-C stops everything.
        ============================================================================
        """.formatted(
            api, runtime.signInUrl(), runtime.oidcIssuer(), EmbeddedOidcProvider.ROLE_CLAIM,
            EmbeddedOidcProvider.ADMIN_VALUE, api, api, runtime.managementUrl(), replicaLines(runtime),
            runtime.temporalAddress(),
            runtime.temporalUiUrl() == null ? "that of the external server" : runtime.temporalUiUrl(), runtime.dbUrl(), runtime.dataDir(), clusters,
            test.status(), test.gpuCount() == null ? 0 : test.gpuCount(), checks(test),
            runtime.dataDir().resolve("admin.token"), api, api, api, api, first, api, api,
            runtime.clusters().get(0).kubeconfig(), runtime.temporalAddress(), first, runtime.temporalAddress(),
            demoSection(runtime));
  }

  /** With replicas, a line naming each behind the front; nothing with one api. */
  static String replicaLines(DevRuntime runtime) {
    if (runtime.apiReplicas() < 2) {
      return "";
    }
    StringBuilder lines = new StringBuilder("                %d replicas behind nginx (HTTP above, Temporal gateway %s):\n"
        .formatted(runtime.apiReplicas(), runtime.temporalGatewayAddress()));
    for (int i = 0; i < runtime.apiReplicas(); i++) {
      lines.append("                  api-%d  %s  gateway %s%n".formatted(i, runtime.apiReplicaUrl(i),
          runtime.temporalGatewayAddress(i)));
    }
    return lines.toString();
  }

  /** The connection test's checks as the API spells them, by name: {@code {"apiserver_reachable":true,...}}. */
  private static String checks(Cluster.ConnectionTest test) {
    try {
      return ApiJson.MAPPER.writeValueAsString(new TreeMap<>(test.checks()));
    } catch (JsonProcessingException e) {
      return String.valueOf(test.checks());
    }
  }

  /** The demo data and the first session's lines; what is missing when the seeding failed; one line with --no-demo. */
  static String demoSection(DevRuntime runtime) {
    DemoCatalogue.Demo demo = runtime.demo();
    StringBuilder text = new StringBuilder("----------------------------------------------------------------------------\n");
    if (demo == null) {
      return text.append(" Demo data: not seeded (--no-demo).\n").toString();
    }
    text.append(" Demo data (named \"demo: ...\"; --no-demo leaves it out):\n");
    for (DemoCatalogue.Offering o : demo.offerings()) {
      text.append("   offering ").append(o.id()).append("  ").append(o.name()).append('\n');
    }
    if (demo.imageId() != null) {
      text.append("   image    ").append(demo.imageId()).append("  ").append(DemoCatalogue.IMAGE_NAME)
          .append(" (").append(DemoCatalogue.IMAGE_REFERENCE).append(")\n");
    }
    if (demo.demoUserId() != null) {
      text.append("   user     ").append(demo.demoUserId()).append("  ").append(DemoCatalogue.DEMO_EMAIL)
          .append(" (role user), token in ").append(demo.tokenFile()).append('\n');
    }
    text.append("   credits  ").append(DemoCatalogue.CREDITS.toPlainString())
        .append(" granted once each to the demo user and the super admin\n");
    for (String problem : demo.problems()) {
      text.append("   FAILED   ").append(problem).append('\n');
    }
    List<String> lines = firstSessionLines(runtime);
    if (lines.isEmpty()) {
      return text.append(" The demo data is incomplete (above), so there is no first session to print.\n").toString();
    }
    if (runtime.hasIngress()) {
      text.append(" A first session in the browser: open the console, sign in as ").append(DemoCatalogue.DEMO_EMAIL)
          .append(", Sessions ->\n Start session, then open its URL (the simulated cluster's stand-in answers it).\n")
          .append(" The same with curl, as the demo user (create; watch until running; open its URL through the ingress: 200):\n");
    } else {
      text.append(" A first session, as the demo user (create; watch until running; its URL and the check its\n")
          .append(" ingress makes before letting you in: 200. --no-ingress: nothing answers the URL):\n");
    }
    for (String line : lines) {
      text.append("   ").append(line).append('\n');
    }
    text.append(" The same with the gshare CLI (make cli; docs/cli.md), progress shown as it goes:\n")
        .append("   cli/bin/gshare login --server ").append(runtime.apiUrl()).append(" --token-stdin < ")
        .append(demo.tokenFile()).append('\n')
        .append("   cli/bin/gshare sessions create --offering ").append(demo.offerings().get(0).id())
        .append(" --image ").append(demo.imageId()).append(" --wait\n");
    return text.toString();
  }

  /**
   * The shell lines that create, watch and open a first session with curl as the demo user, each to
   * be pasted as it is (bash or zsh; curl and grep); empty when the demo data is not ready.
   */
  static List<String> firstSessionLines(DevRuntime runtime) {
    DemoCatalogue.Demo demo = runtime.demo();
    if (demo == null || !demo.ready()) {
      return List.of();
    }
    String api = runtime.apiUrl();
    String auth = "-H \"Authorization: Bearer $DEMO_TOKEN\"";
    String session = api + ApiPaths.SESSIONS + "/$SESSION";
    return List.of(
        "export DEMO_TOKEN=$(cat " + demo.tokenFile() + ")",
        "R=$(curl -s -XPOST " + api + ApiPaths.SESSIONS + " " + auth + " -H 'Content-Type: application/json' -d '"
            + demo.sessionBody() + "'); printf '%s\\n' \"$R\"; SESSION=$(printf '%s' \"$R\" | grep -oE 'ses_[0-9a-z]{16}'"
            + " | head -n1); echo \"SESSION=$SESSION\"",
        "until R=$(curl -s " + session + " " + auth + "); S=$(printf '%s' \"$R\" | grep -oE '\"state\":\"[a-z]+\"' | head -n1);"
            + " printf '%s\\n' \"${S:-${R:-no answer}}\"; printf '%s' \"${S:-$R}\" | grep -qE 'running|paused|failed|terminated|\"code\"';"
            + " do sleep 2; done",
        "URL=$(curl -s " + session + " " + auth + " | grep -oE '\"url\":\"[^\"]*\"' | cut -d'\"' -f4); echo \"$URL\"; curl -s -o /dev/null"
            + " -w '%{http_code}\\n' " + (runtime.hasIngress() ? "\"$URL\" " + auth
                : api + "/internal/connect/verify " + auth + " -H \"X-Original-URL: $URL\""));
  }
}
