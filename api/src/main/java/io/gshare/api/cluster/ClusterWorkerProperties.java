package io.gshare.api.cluster;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How attach deploys a cluster's worker ({@code gshare.cluster-worker.*}).
 *
 * @param deploy {@code kubernetes} (a Deployment in the cluster) or {@code local-process} (dev runtime)
 * @param image the worker image for {@code kubernetes}
 * @param temporalAddress the Temporal frontend as the worker reaches it (from inside its cluster)
 * @param controlPlaneUrl the control plane as the worker reaches it; empty in local mode means this api
 * @param inventoryIntervalSeconds how often the worker reports its inventory (15 s, as the guide says)
 * @param attachWait how long a deployed worker has to poll its queue and report its first inventory
 * @param local the local-process settings
 */
@ConfigurationProperties(prefix = "gshare.cluster-worker", ignoreUnknownFields = false)
public record ClusterWorkerProperties(
    @DefaultValue("kubernetes") String deploy,
    String image,
    @DefaultValue("IfNotPresent") String imagePullPolicy,
    String temporalAddress,
    String controlPlaneUrl,
    @DefaultValue("15") int inventoryIntervalSeconds,
    @DefaultValue("90s") java.time.Duration attachWait,
    @DefaultValue Local local) {

  /**
   * @param jar the cluster-worker jar to run
   * @param stateDir where each worker's mounted files (tokens) go
   * @param logDir where worker output goes; empty inherits the api's
   */
  public record Local(Path jar, Path stateDir, Path logDir) {}

  public boolean localProcess() {
    return "local-process".equals(deploy);
  }
}
