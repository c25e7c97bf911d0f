package io.gshare.sim;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a simulated GPU cluster on its own.
 *
 * <p>Usage: {@code java -cp … io.gshare.sim.SimulatorMain [--port N] [--seed file.yaml] [--kubeconfig out]
 *     [--cgroup-root DIR]}
 */
public final class SimulatorMain {

  private SimulatorMain() {}

  public static void main(String[] args) throws Exception {
    int port = 16443;
    Path seedFile = null;
    Path kubeconfig = Path.of("sim.kubeconfig");
    Path cgroupRoot = null;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(require(value, "--port"));
        case "--seed" -> seedFile = Path.of(require(value, "--seed"));
        case "--kubeconfig" -> kubeconfig = Path.of(require(value, "--kubeconfig"));
        case "--cgroup-root" -> cgroupRoot = Path.of(require(value, "--cgroup-root"));
        default -> usage("unknown argument " + args[i]);
      }
      i++;
    }
    SimSeed seed = seedFile == null ? SimulatedCluster.defaultSeed() : SimulatedCluster.readSeed(seedFile);
    SimulatedCluster cluster =
        SimulatedCluster.start(seed, SimulatedCluster.Options.defaults().withPort(port).withCgroupRoot(cgroupRoot));
    cluster.writeKubeconfig(kubeconfig);
    System.out.println("gShare SIMULATED GPU cluster at " + cluster.url() + "; kubeconfig " + kubeconfig.toAbsolutePath()
        + "; simulated cgroup tree " + cluster.cgroupRoot());
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cluster.close();
      stop.countDown();
    }));
    stop.await();
  }

  private static String require(String value, String flag) {
    if (value == null) {
      usage(flag + " needs a value");
    }
    return value;
  }

  private static void usage(String problem) {
    System.err.println(problem);
    System.err.println("usage: SimulatorMain [--port N] [--seed file.yaml] [--kubeconfig out] [--cgroup-root DIR]");
    System.exit(2);
  }
}
