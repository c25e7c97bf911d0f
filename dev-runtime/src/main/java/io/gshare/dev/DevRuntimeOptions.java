package io.gshare.dev;

import io.gshare.sim.kube.KubeTools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How to run the dev runtime. Flags win over environment variables, which win over defaults.
 *
 * @param dataDir where Postgres keeps its data and the runtime writes kubeconfig and tokens; null
 *     means a fresh temporary directory, removed on exit
 * @param dbUrl an external PostgreSQL instead of the embedded one
 * @param temporalAddress an external Temporal instead of the embedded dev server
 * @param temporalCli the Temporal CLI whose dev server is started when no external Temporal is named
 * @param logDir where child processes write their output; null means this terminal
 * @param oidcPort the embedded OpenID Connect provider the browser sign-in uses (0 picks a free one)
 * @param noDemo do not seed the demo catalogue ({@link DemoCatalogue}): offerings, an image, a demo user and credits
 * @param ingressPort where the simulated clusters' ingress (nginx, {@link DevIngress}) answers session URLs (0 picks a
 *     free one)
 * @param nginx the nginx binary the ingress runs
 * @param noIngress run no ingress: session URLs are then {@code https://<domain>/...} and open nowhere
 * @param apiProperties {@code key=value} settings passed to the api after the dev runtime's own, which they override
 *     (a test's short volume grace, say)
 * @param faultProxy each real cluster's API served through a fault-injecting proxy
 *     ({@link io.gshare.sim.kube.FaultProxy}), for the fault suite
 * @param stateFile where the runtime says, while it runs, where its database and keys are (for
 *     hack/bootstrap-superadmin.sh --dev); tests that run several runtimes at once give each its own
 * @param apiReplicas how many api processes run (each with its control worker); 2 or more run behind nginx on
 *     {@code httpPort} ({@link ApiFront}), sharing their signing keys through PostgreSQL
 */
public record DevRuntimeOptions(
    Path dataDir,
    String dbUrl,
    String dbUser,
    String dbPassword,
    String temporalAddress,
    int httpPort,
    int managementPort,
    int temporalPort,
    int temporalUiPort,
    Path temporalCli,
    int postgresPort,
    int simulatorPort,
    int clusters,
    Path apiJar,
    Path workerJar,
    Path localDeployerJar,
    Path seed,
    Path logDir,
    int oidcPort,
    boolean noDemo,
    int ingressPort,
    Path nginx,
    boolean noIngress,
    List<String> apiProperties,
    boolean faultProxy,
    Path stateFile,
    int apiReplicas) {

  public static final String USAGE = """
      usage: gshare-dev [options]      (make dev runs it after building)
        --data-dir DIR          keep Postgres data, kubeconfig and tokens in DIR across restarts
                                (env GSHARE_DATA_DIR; default: a temporary directory removed on exit)
        --db-url JDBC_URL       use this PostgreSQL instead of the embedded one
                                (env GSHARE_DB_URL, with GSHARE_DB_USER and GSHARE_DB_PASSWORD)
        --temporal-address H:P  use this Temporal instead of the embedded dev server (env GSHARE_TEMPORAL_ADDRESS)
        --http-port N           the api (default 8080, env GSHARE_HTTP_PORT)
        --management-port N     the api's health and metrics (default 9090, env GSHARE_MANAGEMENT_PORT)
        --temporal-port N       the Temporal dev server's gRPC port (default 7233)
        --temporal-ui-port N    the Temporal Web UI (default 8233)
        --oidc-port N           the embedded OpenID Connect provider for browser sign-in (default 8088)
        --temporal-cli FILE     the Temporal CLI that runs the dev server (env GSHARE_TEMPORAL_CLI;
                                default .tools/bin/temporal, built by hack/tools.sh)
        --postgres-port N       the embedded PostgreSQL port (default 55432; 0 picks a free one)
        --fault-proxy           serve each real cluster's API through a proxy that injects apiserver failures from
                                Java (KubeCluster.apiFaults(); the fault suite's)
        --simulator-port N      the first cluster's Kubernetes API port (default 16443; the next ones follow)
        --clusters N            how many simulated clusters to attach, 1 to 9 (default 1; make dev CLUSTERS=2)
        --api-replicas N        how many api processes, each with its control worker, 1 to 4 (default 1, env
                                GSHARE_DEV_API_REPLICAS; make dev API_REPLICAS=2): 2 or more run on free ports behind
                                nginx on --http-port (and on one gRPC port for the cluster-workers' Temporal calls),
                                their signing keys in PostgreSQL
        --seed FILE             the simulated cluster's seed YAML (default: 8x H100, 4x A100, 1 CPU node)
        --api-jar FILE          default api/target/gshare-api.jar
        --worker-jar FILE       default cluster-worker/target/gshare-cluster-worker.jar
        --local-deployer-jar FILE  the dev-only deployer the api runs workers with, put on its class path
                                (default local-deployer/target/gshare-local-deployer.jar)
        --log-dir DIR           write the api and cluster-worker output to DIR instead of this terminal
        --state-file FILE       where to say, while running, where the database and keys are (env GSHARE_DEV_STATE,
                                as hack/bootstrap-superadmin.sh reads it; default .gshare-dev/runtime.env)
        --ingress-port N        the simulated clusters' ingress: session URLs http://gshare.<cluster>.localhost:N/s/<id>/
                                open in a browser through it (default 8081, env GSHARE_INGRESS_PORT)
        --nginx FILE            the nginx the ingress runs (env GSHARE_NGINX; default .tools/bin/nginx, from make tools)
        --no-ingress            run no ingress: session URLs are https://gshare.<cluster>.localhost/s/<id>/ and open nowhere
        --api-property K=V      a setting for the api (repeatable), e.g. gshare.volumes.reclaim-grace=30s; it wins
                                over the dev runtime's own (docs/configuration.md lists the keys)
        --no-demo               do not seed the demo data (named "demo: ..."): an offering per simulated GPU
                                model and mode, a Jupyter image, user demo@example.com and its token in
                                <data dir>/demo.token, credits for it and the super admin (env GSHARE_DEV_NO_DEMO=1)""";

  /** Options that take no value ({@code --no-demo}, or {@code --no-demo=false}). */
  private static final List<String> SWITCHES = List.of("no-demo", "no-ingress", "fault-proxy");

  public static DevRuntimeOptions parse(String[] args, Map<String, String> env) {
    Map<String, String> flags = new HashMap<>();
    List<String> apiProperties = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        problems.add("unexpected argument '" + arg + "'");
        continue;
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (SWITCHES.contains(name)) {
        value = "true";
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        problems.add("--" + name + " needs a value");
        continue;
      }
      if (name.equals("api-property")) {
        if (!value.matches("[a-z][a-z0-9.\\-\\[\\]]*=.*")) {
          problems.add("--api-property '" + value + "' is not key=value");
        }
        apiProperties.add(value);
        continue;
      }
      flags.put(name, value);
    }
    List<String> known = List.of("data-dir", "db-url", "temporal-address", "http-port", "management-port", "temporal-port",
        "temporal-ui-port", "oidc-port", "temporal-cli", "postgres-port", "simulator-port", "clusters", "seed", "api-jar", "worker-jar", "local-deployer-jar", "log-dir",
        "no-demo", "ingress-port", "nginx", "no-ingress", "fault-proxy", "state-file", "api-replicas");
    flags.keySet().stream().filter(f -> !known.contains(f)).forEach(f -> problems.add("unknown option --" + f));

    String dataDir = flags.getOrDefault("data-dir", env.get("GSHARE_DATA_DIR"));
    String dbUrl = flags.getOrDefault("db-url", env.get("GSHARE_DB_URL"));
    String temporal = flags.getOrDefault("temporal-address", env.get("GSHARE_TEMPORAL_ADDRESS"));
    if (temporal != null && !temporal.matches("[^\\s:/]+:\\d{1,5}")) {
      problems.add("--temporal-address '" + temporal + "' is not host:port");
    }
    if (dbUrl != null && !dbUrl.startsWith("jdbc:postgresql:")) {
      problems.add("--db-url '" + dbUrl + "' is not a jdbc:postgresql: URL");
    }
    int http = port(flags.getOrDefault("http-port", env.getOrDefault("GSHARE_HTTP_PORT", "8080")), "http-port", problems);
    int management = port(flags.getOrDefault("management-port", env.getOrDefault("GSHARE_MANAGEMENT_PORT", "9090")),
        "management-port", problems);
    int temporalPort = port(flags.getOrDefault("temporal-port", "7233"), "temporal-port", problems);
    int temporalUiPort = port(flags.getOrDefault("temporal-ui-port", "8233"), "temporal-ui-port", problems);
    Path temporalCli = Path.of(flags.getOrDefault("temporal-cli", env.getOrDefault("GSHARE_TEMPORAL_CLI", ".tools/bin/temporal")));
    if (temporal == null && !temporalCli.toFile().canExecute()) {
      problems.add(temporalCli + " is not an executable Temporal CLI (run make tools, or name one with --temporal-cli)");
    }
    int postgres = port(flags.getOrDefault("postgres-port", "55432"), "postgres-port", problems);
    int oidc = port(flags.getOrDefault("oidc-port", "8088"), "oidc-port", problems);
    int simulator = port(flags.getOrDefault("simulator-port", "16443"), "simulator-port", problems);
    int clusters = port(flags.getOrDefault("clusters", env.getOrDefault("GSHARE_DEV_CLUSTERS", "1")), "clusters", problems);
    if (clusters < 1 || clusters > 9) {
      problems.add("--clusters must be between 1 and 9");
    }
    Path apiJar = Path.of(flags.getOrDefault("api-jar", "api/target/gshare-api.jar"));
    Path workerJar = Path.of(flags.getOrDefault("worker-jar", "cluster-worker/target/gshare-cluster-worker.jar"));
    Path localDeployerJar = Path.of(flags.getOrDefault("local-deployer-jar",
        "local-deployer/target/gshare-local-deployer.jar"));
    Path seed = flags.containsKey("seed") ? Path.of(flags.get("seed")) : null;
    for (Path required : new Path[] {apiJar, workerJar, localDeployerJar, seed}) {
      if (required != null && !required.toFile().isFile()) {
        problems.add(required + " does not exist" + (required.toString().endsWith(".jar") ? " (run make build)" : ""));
      }
    }
    boolean noDemo = flags.containsKey("no-demo")
        ? bool(flags.get("no-demo"), "--no-demo", problems)
        : bool(env.getOrDefault("GSHARE_DEV_NO_DEMO", "false"), "GSHARE_DEV_NO_DEMO", problems);
    boolean noIngress = flags.containsKey("no-ingress") && bool(flags.get("no-ingress"), "--no-ingress", problems);
    int ingressPort = port(flags.getOrDefault("ingress-port", env.getOrDefault("GSHARE_INGRESS_PORT", "8081")), "ingress-port", problems);
    Path nginx = Path.of(flags.getOrDefault("nginx", env.getOrDefault("GSHARE_NGINX", ".tools/bin/nginx")));
    int apiReplicas = port(flags.getOrDefault("api-replicas", env.getOrDefault("GSHARE_DEV_API_REPLICAS", "1")),
        "api-replicas", problems);
    if (apiReplicas < 1 || apiReplicas > 4) {
      problems.add("--api-replicas must be between 1 and 4");
    }
    if (!noIngress && !nginx.toFile().canExecute()) {
      problems.add(nginx + " is not an executable nginx (run make tools, name one with --nginx, or start with --no-ingress)");
    } else if (apiReplicas > 1 && !nginx.toFile().canExecute()) {
      problems.add(nginx + " is not an executable nginx, which runs in front of the api replicas (run make tools, name"
          + " one with --nginx, or run one api)");
    }
    // Each GPU cluster is a real Kubernetes built by make tools; without it nothing can start.
    try {
      KubeTools.locate();
    } catch (IllegalStateException missing) {
      problems.add(missing.getMessage());
    }
    boolean faultProxy = flags.containsKey("fault-proxy") && bool(flags.get("fault-proxy"), "--fault-proxy", problems);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new DevRuntimeOptions(
        dataDir == null ? null : Path.of(dataDir), dbUrl, env.getOrDefault("GSHARE_DB_USER", "postgres"),
        env.getOrDefault("GSHARE_DB_PASSWORD", ""), temporal, http, management, temporalPort, temporalUiPort,
        temporalCli, postgres, simulator, clusters,
        apiJar, workerJar, localDeployerJar, seed, flags.containsKey("log-dir") ? Path.of(flags.get("log-dir")) : null, oidc, noDemo,
        ingressPort, nginx, noIngress, List.copyOf(apiProperties), faultProxy,
        Path.of(flags.getOrDefault("state-file", env.getOrDefault("GSHARE_DEV_STATE", ".gshare-dev/runtime.env"))),
        apiReplicas);
  }

  /** true, 1, yes / false, 0, no or empty (any case). */
  private static boolean bool(String value, String name, List<String> problems) {
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes":
        return true;
      case "false", "0", "no", "":
        return false;
      default:
        problems.add(name + " '" + value + "' is not true or false");
        return false;
    }
  }

  private static int port(String value, String name, List<String> problems) {
    try {
      int port = Integer.parseInt(value);
      if (port < 0 || port > 65535) {
        problems.add("--" + name + " " + value + " is not a port");
      }
      return port;
    } catch (NumberFormatException e) {
      problems.add("--" + name + " '" + value + "' is not a number");
      return -1;
    }
  }
}
