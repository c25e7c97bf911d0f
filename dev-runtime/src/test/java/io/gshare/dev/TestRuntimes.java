package io.gshare.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** A dev runtime for a test class: one GPU cluster (a real Kubernetes unless said), every port free, its logs under target/. */
public final class TestRuntimes {

  private TestRuntimes() {}

  public static DevRuntime start(String logDir) throws IOException {
    return start(logDir, null);
  }

  /**
   * @param dataDir kept across the runtime's parts' restarts (null: a temporary one, Temporal in memory)
   * @param apiProperties {@code key=value} settings for the api ({@code --api-property})
   */
  public static DevRuntime start(String logDir, Path dataDir, String... apiProperties) throws IOException {
    return start(false, logDir, dataDir, apiProperties);
  }

  /**
   * A dev runtime whose real cluster's API is served through the fault proxy ({@code --fault-proxy}): for the fault
   * suite, which injects apiserver failures ({@code KubeCluster.apiFaults()}) and drops nodes.
   */
  public static DevRuntime startWithFaultProxy(String logDir, Path dataDir, String... apiProperties) throws IOException {
    return start(true, 1, logDir, dataDir, apiProperties);
  }

  /**
   * A dev runtime whose api runs as {@code replicas} processes behind nginx ({@code --api-replicas}): for the fault
   * suite's replica scenarios, which kill and restart them.
   */
  public static DevRuntime startWithReplicas(int replicas, String logDir, Path dataDir, String... apiProperties)
      throws IOException {
    return start(false, replicas, logDir, dataDir, apiProperties);
  }

  private static DevRuntime start(boolean faultProxy, String logDir, Path dataDir, String... apiProperties)
      throws IOException {
    return start(faultProxy, 1, logDir, dataDir, apiProperties);
  }

  private static DevRuntime start(boolean faultProxy, int replicas, String logDir, Path dataDir,
      String... apiProperties) throws IOException {
    List<String> args = new ArrayList<>(List.of(
        "--clusters", "1",
        "--http-port", String.valueOf(freePort()),
        "--management-port", String.valueOf(freePort()),
        "--temporal-port", String.valueOf(freePort()),
        "--temporal-ui-port", String.valueOf(freePort()),
        "--oidc-port", String.valueOf(freePort()),
        "--temporal-cli", System.getProperty("gshare.dev.temporal-cli"),
        "--nginx", System.getProperty("gshare.dev.nginx"),
        "--ingress-port", String.valueOf(freePort()),
        "--postgres-port", String.valueOf(freePort()),
        "--simulator-port", String.valueOf(freePort()),
        "--api-jar", System.getProperty("gshare.dev.api-jar"),
        "--worker-jar", System.getProperty("gshare.dev.worker-jar"),
        "--local-deployer-jar", System.getProperty("gshare.dev.local-deployer-jar"),
        "--log-dir", Path.of("target", logDir).toAbsolutePath().toString(),
        // Its own: the classes' runtimes run at once in failsafe's two JVMs.
        "--state-file", Path.of("target", logDir, "runtime.env").toAbsolutePath().toString()));
    if (faultProxy) {
      args.add("--fault-proxy");
    }
    if (replicas > 1) {
      args.addAll(List.of("--api-replicas", String.valueOf(replicas)));
    }
    if (dataDir != null) {
      args.addAll(List.of("--data-dir", dataDir.toString()));
    }
    for (String property : apiProperties) {
      args.addAll(List.of("--api-property", property));
    }
    return DevRuntime.start(DevRuntimeOptions.parse(args.toArray(String[]::new), Map.of()));
  }

  /**
   * A port free now, below the kernel's ephemeral range (32768 and up on Linux): the parts bind theirs one after
   * another, and the Temporal dev server and the JVMs take ephemeral ports meanwhile, which once took a port picked
   * for a part that had not bound it yet.
   */
  public static synchronized int freePort() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = random.nextInt(20_000, 32_000);
      if (PICKED.add(port)) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
          return port;
        } catch (IOException taken) {
          // try another
        }
      }
    }
    throw new UncheckedIOException(new IOException("no free port between 20000 and 32000"));
  }

  /** Ports handed out in this JVM: never twice, even if the first taker has not bound it yet. */
  private static final Set<Integer> PICKED = new HashSet<>();
}
