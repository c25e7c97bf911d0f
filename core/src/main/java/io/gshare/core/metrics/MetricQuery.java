package io.gshare.core.metrics;

import io.gshare.workflows.common.WireEnum;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The named metric queries: the only PromQL that crosses the API. Each names what it measures, its unit, the scopes
 * it may be asked for, and builds its PromQL from a resolved {@link MetricTarget} (label values that come from
 * gShare's own rows, escaped), never from text a caller sent.
 */
public enum MetricQuery implements WireEnum {
  /** dcgm-exporter's per-card utilization. */
  GPU_UTILIZATION("percent", EnumSet.of(Scope.GPU, Scope.NODE, Scope.SESSION, Scope.CLUSTER)) {
    @Override
    String promql(MetricTarget t) {
      return "max by (UUID, Hostname) (DCGM_FI_DEV_GPU_UTIL" + gpuSelector(t) + ")";
    }
  },
  /** dcgm-exporter's per-card framebuffer memory in use. */
  GPU_MEMORY_USED("MiB", EnumSet.of(Scope.GPU, Scope.NODE, Scope.SESSION, Scope.CLUSTER)) {
    @Override
    String promql(MetricTarget t) {
      return "max by (UUID, Hostname) (DCGM_FI_DEV_FB_USED" + gpuSelector(t) + ")";
    }
  },
  /** node-exporter: the share of the node's CPU time not idle, over 5 minutes. */
  NODE_CPU("ratio", EnumSet.of(Scope.NODE)) {
    @Override
    String promql(MetricTarget t) {
      return "1 - avg by (node) (rate(node_cpu_seconds_total{mode=\"idle\",node=" + quote(t.hostname()) + "}[5m]))";
    }
  },
  /** node-exporter: the share of the node's memory in use. */
  NODE_MEMORY("ratio", EnumSet.of(Scope.NODE)) {
    @Override
    String promql(MetricTarget t) {
      String node = "{node=" + quote(t.hostname()) + "}";
      return "1 - (node_memory_MemAvailable_bytes" + node + " / node_memory_MemTotal_bytes" + node + ")";
    }
  },
  /** cAdvisor: the session container's CPU, in cores, over 5 minutes. */
  SESSION_CPU("cores", EnumSet.of(Scope.SESSION)) {
    @Override
    String promql(MetricTarget t) {
      return "sum(rate(container_cpu_usage_seconds_total" + containerSelector(t) + "[5m]))";
    }
  },
  /** cAdvisor: the session container's working set. */
  SESSION_MEMORY("bytes", EnumSet.of(Scope.SESSION)) {
    @Override
    String promql(MetricTarget t) {
      return "sum(container_memory_working_set_bytes" + containerSelector(t) + ")";
    }
  },
  /** HAMi's vGPU monitor: device memory each slice (container, device) uses. */
  VGPU_MEMORY_USED("bytes", EnumSet.of(Scope.SESSION, Scope.CLUSTER)) {
    @Override
    String promql(MetricTarget t) {
      String selector = t.scope() == Scope.SESSION
          ? "{namespace=" + quote(t.namespace()) + ",pod=" + quote(t.pod()) + "}"
          : "{namespace=" + quote(t.namespace()) + "}";
      return "sum by (pod, device_uuid) (hami_vgpu_memory_used_bytes" + selector + ")";
    }
  };

  /** What a query is asked about: one card, one node, one session, or a whole cluster. */
  public enum Scope { GPU, NODE, SESSION, CLUSTER }

  private final String unit;
  private final Set<Scope> scopes;

  MetricQuery(String unit, Set<Scope> scopes) {
    this.unit = unit;
    this.scopes = scopes;
  }

  abstract String promql(MetricTarget target);

  /** The PromQL for {@code target}; refuses a scope this query is not asked for. */
  public String promqlFor(MetricTarget target) {
    if (!scopes.contains(target.scope())) {
      throw new IllegalArgumentException(wireName() + " is asked per " + scopeNames() + ", not per "
          + target.scope().name().toLowerCase(Locale.ROOT));
    }
    return promql(target);
  }

  public String unit() {
    return unit;
  }

  public Set<Scope> scopes() {
    return scopes;
  }

  public String scopeNames() {
    return scopes.stream().map(s -> s.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", "));
  }

  public static Optional<MetricQuery> fromWire(String name) {
    return WireEnum.parse(MetricQuery.class, name);
  }

  /** The cards of the target, by UUID (a card, a session's cards), by host (a node), or all (a cluster). */
  static String gpuSelector(MetricTarget t) {
    return switch (t.scope()) {
      case GPU, SESSION -> "{UUID=~" + quote(alternation(t.gpuUuids())) + "}";
      case NODE -> "{Hostname=" + quote(t.hostname()) + "}";
      case CLUSTER -> "";
    };
  }

  static String containerSelector(MetricTarget t) {
    return "{namespace=" + quote(t.namespace()) + ",pod=" + quote(t.pod()) + ",container=" + quote(t.container()) + "}";
  }

  /** A PromQL string literal: backslashes and double quotes escaped, and no line breaks. */
  static String quote(String value) {
    if (value == null || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("not a label value: " + value);
    }
    return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  /** A regular expression matching exactly these values (each escaped as RE2 needs), for {@code =~}. */
  static String alternation(List<String> values) {
    if (values.isEmpty()) {
      // matches nothing: a session without cards has no card series
      return "^$";
    }
    return values.stream().map(v -> v.replaceAll("([\\\\.+*?()|\\[\\]{}^$])", "\\\\$1")).collect(Collectors.joining("|"));
  }
}
