package io.gshare.api.cluster;

import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.gshare.core.error.GshareException;
import io.gshare.core.error.ProblemCode;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * Checks a kubeconfig before anything starts: it parses, names a current context that exists, and
 * its server is not a loopback address (the control plane would be talking to itself). The dev
 * runtime's simulated clusters are the one exception, and only when the dev runtime allows it.
 */
final class KubeconfigValidator {

  static final String LOOPBACK_ADVICE = "the kubeconfig's server: is a loopback address; use an address reachable"
      + " from the control plane (the node's LAN/WAN IP), see `grep server: remote.kubeconfig`";

  private KubeconfigValidator() {}

  /** Returns the server URL. */
  static String validate(String kubeconfig, boolean allowLoopback) {
    if (kubeconfig == null || kubeconfig.isBlank()) {
      throw invalid("kubeconfig is required");
    }
    Config config;
    try {
      config = KubeConfigUtils.parseConfigFromString(kubeconfig);
    } catch (RuntimeException e) {
      throw invalid("the kubeconfig does not parse as YAML/JSON: " + e.getMessage());
    }
    if (config == null || config.getCurrentContext() == null || config.getCurrentContext().isBlank()) {
      throw invalid("the kubeconfig has no current-context");
    }
    NamedContext context = config.getContexts() == null ? null : config.getContexts().stream()
        .filter(c -> config.getCurrentContext().equals(c.getName())).findFirst().orElse(null);
    if (context == null || context.getContext() == null) {
      throw invalid("the kubeconfig's current-context '" + config.getCurrentContext() + "' is not among its contexts");
    }
    NamedCluster cluster = config.getClusters() == null ? null : config.getClusters().stream()
        .filter(c -> c.getName().equals(context.getContext().getCluster())).findFirst().orElse(null);
    if (cluster == null || cluster.getCluster() == null || cluster.getCluster().getServer() == null) {
      throw invalid("the kubeconfig's current context names no cluster with a server:");
    }
    String server = cluster.getCluster().getServer();
    URI uri;
    try {
      uri = URI.create(server);
    } catch (IllegalArgumentException e) {
      throw invalid("the kubeconfig's server: '" + server + "' is not a URL");
    }
    if (uri.getHost() == null || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
      throw invalid("the kubeconfig's server: '" + server + "' is not an http(s) URL");
    }
    if (!allowLoopback && isLoopback(uri.getHost())) {
      throw new GshareException(ProblemCode.VALIDATION_FAILED, LOOPBACK_ADVICE, Map.of("server", server));
    }
    return server;
  }

  static boolean isLoopback(String host) {
    String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    if (bare.equalsIgnoreCase("localhost") || bare.toLowerCase().endsWith(".localhost")) {
      return true;
    }
    if (!bare.matches("[0-9.]+") && !bare.contains(":")) {
      return false; // a DNS name: never resolved here, the control plane resolves it where it runs
    }
    try {
      return InetAddress.getByName(bare).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static GshareException invalid(String detail) {
    return new GshareException(ProblemCode.VALIDATION_FAILED, detail);
  }
}
