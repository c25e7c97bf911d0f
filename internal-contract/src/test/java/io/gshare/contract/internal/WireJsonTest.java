package io.gshare.contract.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The records name their own JSON: a plain mapper, with no naming strategy set, writes and reads snake_case. */
class WireJsonTest {

  private final ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());

  @Test
  void inventoryIsSnakeCaseAtEveryLevel() throws Exception {
    var report = new InventoryReport("clu_a", "v1.33.0", List.of(new InventoryReport.NodeReport("gpu-a", true, true,
        "fractional", false, Map.of("gshare.io/gpu-mode", "fractional"), Map.of("nvidia.com/gpu", "4"),
        List.of(new InventoryReport.GpuReport("GPU-1", 0, "A100", 40_960, 100, 4, true)))));

    JsonNode tree = json.valueToTree(report);

    assertThat(fields(tree)).containsExactly("cluster_id", "apiserver_version", "nodes", "token_secret_present");
    assertThat(fields(tree.get("nodes").get(0))).containsExactly("hostname", "ready", "schedulable", "gpu_mode",
        "lossless_pause", "labels", "capacity", "gpus");
    assertThat(fields(tree.get("nodes").get(0).get("gpus").get(0))).containsExactly("uuid", "index", "model",
        "memory_mib", "cores_percent", "split_count", "healthy");
    // Map keys are data, not properties: they stay as the cluster spells them.
    assertThat(tree.at("/nodes/0/labels").has("gshare.io/gpu-mode")).isTrue();
    assertThat(json.treeToValue(tree, InventoryReport.class)).isEqualTo(report);
  }

  @Test
  void statusUsageAndVolumesAreSnakeCase() throws Exception {
    var status = new StatusReport(List.of(new SessionStatus("ses_1", "Running", "10.0.0.7", "gpu-a", null)), true);
    JsonNode statusTree = json.valueToTree(status);
    assertThat(fields(statusTree)).containsExactly("sessions", "complete");
    assertThat(fields(statusTree.get("sessions").get(0))).containsExactly("session_id", "phase", "pod_ip", "node",
        "message");
    assertThat(json.treeToValue(statusTree, StatusReport.class)).isEqualTo(status);

    var usage = new UsageReport(List.of(new UsageReport.Sample("ses_1", "GPU-1", 42.5, 1024L,
        Instant.parse("2026-01-01T00:00:00Z"))));
    JsonNode usageTree = json.valueToTree(usage);
    assertThat(fields(usageTree.get("samples").get(0))).containsExactly("session_id", "gpu_uuid", "gpu_util_percent",
        "memory_used_mib", "sampled_at", "last_kernel_at", "source");
    assertThat(json.treeToValue(usageTree, UsageReport.class)).isEqualTo(usage);
    var usageAnswer = new UsageAnswer(3, "http://prometheus:9090", null);
    assertThat(fields(json.valueToTree(usageAnswer))).containsExactly("accepted", "prometheus_url", "hami_monitor_url");

    var volumes = new VolumeSync(List.of(new VolumeSync.VolumeState("vol_1", "gshare-vol-1", "Bound", 10L, 1L, 10L)),
        List.of(new VolumeSync.StorageClassState("gshare-nfs", true, 2048L)), 500L);
    JsonNode volumesTree = json.valueToTree(volumes);
    assertThat(fields(volumesTree)).containsExactly("volumes", "storage_classes", "storage_node_disk_bytes");
    assertThat(fields(volumesTree.get("volumes").get(0))).containsExactly("volume_id", "pvc_name", "phase",
        "capacity_bytes", "used_bytes", "requested_bytes");
    assertThat(fields(volumesTree.get("storage_classes").get(0))).containsExactly("name", "allows_expansion",
        "csi_capacity_bytes");
    assertThat(json.treeToValue(volumesTree, VolumeSync.class)).isEqualTo(volumes);
    var answer = new VolumeSyncAnswer(List.of(new VolumeSyncAnswer.ClaimResize("gshare-vol-1", 20)), List.of("gshare-vol-2"));
    JsonNode answerTree = json.valueToTree(answer);
    assertThat(fields(answerTree)).containsExactly("resize", "delete_claims");
    assertThat(fields(answerTree.get("resize").get(0))).containsExactly("pvc_name", "size_gb");
    assertThat(json.treeToValue(answerTree, VolumeSyncAnswer.class)).isEqualTo(answer);
  }

  @Test
  void anAbsentCompleteFlagIsFalse() throws Exception {
    assertThat(json.readValue("{\"sessions\":[]}", StatusReport.class).complete()).isFalse();
    assertThat(json.readValue("{\"sessions\":[],\"complete\":null}", StatusReport.class).complete()).isFalse();
  }

  private static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
