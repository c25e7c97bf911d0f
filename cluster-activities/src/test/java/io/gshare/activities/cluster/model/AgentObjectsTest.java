package io.gshare.activities.cluster.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gshare.workflows.cluster.AgentEnv;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The usage agent's DaemonSet: what it mounts, reads and runs as ({@code KubernetesWorkerDeployerTest} applies it). */
class AgentObjectsTest {

  private static final WorkerObjects.Settings SETTINGS = new WorkerObjects.Settings(
      "registry.example.com/gshare/gshare-cluster-worker:1.0", "IfNotPresent", "temporal.example.com:7233", "default",
      "https://gshare.example.com", 15, 300);

  @Test
  void theAgentRunsTheWorkerImageAsAgentOnEveryGpuNodeReadingTheCgroupTreeReadOnly() {
    DaemonSet ds = AgentObjects.daemonSet("clu_a", SETTINGS);
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container agent = pod.getContainers().get(0);
    assertThat(agent.getImage()).isEqualTo(SETTINGS.image());
    assertThat(agent.getArgs()).containsExactly("agent");
    assertThat(pod.getNodeSelector()).containsEntry("gpu", "on");
    assertThat(pod.getTolerations()).anySatisfy(t -> assertThat(t.getOperator()).isEqualTo("Exists"));
    assertThat(pod.getServiceAccountName()).isEqualTo(WorkerObjects.NAME);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(agent.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(agent.getVolumeMounts()).anySatisfy(m -> {
      assertThat(m.getMountPath()).isEqualTo(AgentObjects.CGROUP_MOUNT);
      assertThat(m.getReadOnly()).isTrue();
    });
    assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getHostPath()).isNotNull()
        .extracting(HostPathVolumeSource::getPath).isEqualTo("/sys/fs/cgroup"));
    assertThat(ds.getSpec().getSelector().getMatchLabels()).isNotEmpty()
        .allSatisfy((k, v) -> assertThat(ds.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(k, v));

    // Every variable the agent reads is set (the node by the downward API), and HAMi's URL expands the node's IP.
    Map<String, EnvVar> env = agent.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
    assertThat(env.keySet()).containsAll(Arrays.stream(AgentEnv.values()).map(AgentEnv::variable).toList());
    assertThat(env.get(AgentEnv.NODE_NAME.variable()).getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
    assertThat(env.get(AgentEnv.CONTROL_PLANE_URL.variable()).getValue()).isEqualTo("https://gshare.example.com");
    assertThat(env.get(AgentEnv.TOKEN_FILE.variable()).getValue())
        .isEqualTo(WorkerObjects.TOKEN_MOUNT + "/" + WorkerObjects.TOKEN_KEY);
    assertThat(env.get(AgentEnv.HAMI_MONITOR_URL.variable()).getValue())
        .isEqualTo("http://$(" + AgentObjects.NODE_IP + "):9394/metrics");
    // $(VAR) expands only variables defined before it in the list, as the kubelet does.
    assertThat(agent.getEnv().indexOf(env.get(AgentObjects.NODE_IP)))
        .isLessThan(agent.getEnv().indexOf(env.get(AgentEnv.HAMI_MONITOR_URL.variable())));
  }
}
