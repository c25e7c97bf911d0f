package io.gshare.dev;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
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

    JsonNode test = runtime.connectionTest(runtime.clusters().get(0).id());
    System.out.println(banner(runtime, test));

    // A child that dies takes the runtime down: a half-running dev runtime only confuses.
    while (!stopping.get()) {
      ChildProcess dead = runtime.deadChild();
      if (dead != null && !stopping.get()) {
        System.err.println("gshare-dev: the " + dead.name() + " process exited (code " + dead.process().exitValue()
            + "); stopping everything");
        System.exit(1);
      }
      Thread.sleep(1000);
    }
  }

  static String banner(DevRuntime runtime, JsonNode test) {
    String api = runtime.apiUrl();
    StringBuilder clusters = new StringBuilder();
    for (DevRuntime.AttachedCluster c : runtime.clusters()) {
      clusters.append("""
           cluster        %s (%s): Kubernetes API %s (simulator), sessions on %s
                          kubeconfig %s
          """.formatted(c.id(), c.name(), c.simulator().url(), c.sessionDomain(), c.kubeconfig()));
    }
    String first = runtime.clusters().get(0).id();
    return """

        ============================================================================
         gShare dev runtime is up (SIMULATED GPU clusters: no real hardware)
        ----------------------------------------------------------------------------
         api            %s   (health %s/healthz, metrics %s/actuator/prometheus)
         Temporal       %s   (Web UI %s)
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
         Ctrl-C stops everything.
        ============================================================================
        """.formatted(
            api, api, runtime.managementUrl(), runtime.temporalAddress(),
            runtime.temporalUiUrl() == null ? "that of the external server" : runtime.temporalUiUrl(), runtime.dbUrl(), runtime.dataDir(), clusters,
            test.path("status").asText(), test.path("gpu_count").asInt(), test.path("checks"),
            runtime.dataDir().resolve("admin.token"), api, api, api, api, first, api, api,
            runtime.clusters().get(0).kubeconfig(), runtime.temporalAddress(), first, runtime.temporalAddress());
  }
}
