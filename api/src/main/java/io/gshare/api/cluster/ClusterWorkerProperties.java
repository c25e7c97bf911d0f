package io.gshare.api.cluster;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import java.nio.file.Path;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How attach deploys a cluster's worker ({@code gshare.cluster-worker.*}).
 *
 * @param deploy {@code kubernetes} (a Deployment in the cluster) or {@code local-process} (dev runtime)
 * @param image the worker image for {@code kubernetes}; empty means the released image of this api's version,
 *     {@code <imageRegistry>/gshare-cluster-worker:<version>} ({@code make images} builds it)
 * @param imageRegistry where the released worker image is, when {@code image} is empty
 * @param imagePullPolicy the worker container's pull policy for {@code kubernetes}
 * @param temporalAddress the Temporal frontend as the worker reaches it (from inside its cluster); empty means
 *     {@code gshare.temporal.address}
 * @param temporalGateway {@code temporalAddress} is the control plane's Temporal gateway: the worker's operator token
 *     is its API key and it is handed no Temporal credential (the chart's default)
 * @param temporalTls the worker speaks TLS to {@code temporalAddress} with the JVM's trust store (the internal
 *     plane's ingress)
 * @param controlPlaneUrl the control plane as the worker reaches it; empty in local mode means this api
 * @param inventoryIntervalSeconds how often the worker reports its inventory (15 s, as the guide says)
 * @param volumeSyncIntervalSeconds how often the worker syncs volumes (claims, usage, StorageClasses): 5 min, the
 *     chart's {@code operator.volumeSyncInterval}
 * @param attachWait how long a deployed worker has to poll its queue and report its first inventory
 * @param local the local-process settings
 * @param agent the usage agent (the chart's {@code agent.enabled}): a DaemonSet beside the worker that samples the
 *     session containers' cgroups every second for the live chart; off by default, applied at the next attach
 */
@Validated
@ConfigurationProperties(prefix = "gshare.cluster-worker", ignoreUnknownFields = false)
public record ClusterWorkerProperties(
    @DefaultValue("kubernetes") @NotNull Deploy deploy,
    String image,
    @DefaultValue("registry.example.com/gshare") @NotNull @Pattern(regexp = "[^\\s:@]+(:\\d+)?(/[^\\s:@]+)*",
        message = "must be a registry host with an optional path, without a tag") String imageRegistry,
    @DefaultValue("IfNotPresent") @Pattern(regexp = "Always|IfNotPresent|Never") String imagePullPolicy,
    @Pattern(regexp = "([^\\s:/]+:\\d{1,5})?", message = "must be host:port") String temporalAddress,
    @DefaultValue("false") boolean temporalGateway,
    @DefaultValue("false") boolean temporalTls,
    @Pattern(regexp = "(https?://\\S+)?", message = "must be an http(s) URL") String controlPlaneUrl,
    @DefaultValue("15") @Positive int inventoryIntervalSeconds,
    @DefaultValue("300") @Positive int volumeSyncIntervalSeconds,
    @DefaultValue("90s") @NotNull @DurationMin(millis = 1) Duration attachWait,
    @DefaultValue @Valid Local local,
    @DefaultValue Agent agent) {

  /** Where attach runs a cluster's worker; bound from {@code kubernetes} or {@code local-process}. */
  public enum Deploy {
    /** A one-replica Deployment in the cluster, from {@code image}. */
    KUBERNETES,
    /** A child process of this api running {@code local.jar} (dev runtime, tests). */
    LOCAL_PROCESS
  }

  /** The released worker image's repository, without a tag. */
  public static final String WORKER_IMAGE = "gshare-cluster-worker";

  /** The image attach deploys: {@code image}, else the released one of {@code version}. */
  public String imageFor(String version) {
    if (image != null && !image.isBlank()) {
      return image;
    }
    if (version == null || version.isBlank()) {
      throw new IllegalStateException("this api does not know its version (no build-info): set gshare.cluster-worker.image");
    }
    return imageRegistry + "/" + WORKER_IMAGE + ":" + version;
  }

  public ClusterWorkerProperties {
    if (deploy == Deploy.LOCAL_PROCESS && (local == null || local.jar() == null)) {
      throw new IllegalArgumentException("gshare.cluster-worker.local.jar must name the cluster-worker jar in local-process mode");
    }
  }

  /** @param enabled deploy the usage agent with each cluster's worker */
  public record Agent(@DefaultValue("false") boolean enabled) {}

  /**
   * @param jar the cluster-worker jar to run
   * @param stateDir where each worker's mounted files (tokens) go; empty means {@code <java.io.tmpdir>/gshare-local-workers}
   * @param logDir where worker output goes; empty inherits the api's
   * @param shared several api replicas share {@code stateDir} (the dev runtime's {@code --api-replicas}): each worker
   *     runs as a child of this api's parent (the dev runtime) and outlives the replica that started it, a worker
   *     another replica started counts as running, and stopping this api leaves the workers running
   */
  public record Local(Path jar, Path stateDir, Path logDir, @DefaultValue("false") boolean shared) {}
}
