package io.gshare.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gshare.sim.kube.LocalKubernetes;
import io.gshare.workflows.kube.KubeNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Server-side apply with real field managers: gShare's worker applies its objects as
 * {@value SessionClusterActivitiesImpl#FIELD_MANAGER} with {@code forceConflicts()}. When another manager
 * ({@code kubectl}) changed a field gShare owns, kubectl's own apply is refused with a conflict naming gShare until it
 * forces; gShare's next apply without force would be refused too, and with force (what it does) takes the field back:
 * the value gShare wants wins and gShare owns it again. docs/operator: edits by hand to gShare's objects last until
 * gShare's next apply of them.
 */
class ServerSideApplyConflictIT {

  private static final String NAMESPACE = KubeNames.SESSIONS_NAMESPACE;
  private static final String FIELD_MANAGER = SessionClusterActivitiesImpl.FIELD_MANAGER;

  @Test
  void anotherManagersChangeToAFieldGshareOwnsIsTakenBackByGsharesForcedApply() throws Exception {
    LocalKubernetes kube = LocalKubernetes.shared();
    try (KubernetesClient client = kube.newClient()) {
      client.resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
      client.resource(service(8888)).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();

      String byHand = """
          apiVersion: v1
          kind: Service
          metadata: {name: ssa-conflict, namespace: %s}
          spec:
            selector: {app: ssa-conflict}
            ports: [{name: http, port: 80, targetPort: 9999}]
          """.formatted(NAMESPACE);
      Result refused = kubectl(kube, byHand, "apply", "--server-side", "-f", "-");
      assertThat(refused.exitCode()).isNotZero();
      assertThat(refused.output()).contains("conflict").contains(FIELD_MANAGER);

      Result forced = kubectl(kube, byHand, "apply", "--server-side", "--force-conflicts", "-f", "-");
      assertThat(forced.exitCode()).as(forced.output()).isZero();
      assertThat(targetPort(client)).isEqualTo(9999);
      assertThat(managers(client)).contains("kubectl");

      assertThatThrownBy(() -> client.resource(service(8888)).fieldManager(FIELD_MANAGER).serverSideApply())
          .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(409);
            assertThat(e.getMessage()).contains("kubectl");
          });

      client.resource(service(8888)).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
      assertThat(targetPort(client)).isEqualTo(8888);
      Service after = client.services().inNamespace(NAMESPACE).withName("ssa-conflict").get();
      String owners = client.getKubernetesSerialization().asJson(after.getMetadata().getManagedFields());
      assertThat(after.getMetadata().getManagedFields()).filteredOn(m -> m.getManager().equals(FIELD_MANAGER))
          .singleElement().satisfies(m -> assertThat(client.getKubernetesSerialization().asJson(m.getFieldsV1()))
              .contains("targetPort"));
      assertThat(owners).contains(FIELD_MANAGER);
      client.resource(after).delete();
    }
  }

  private static Service service(int targetPort) {
    return new ServiceBuilder().withNewMetadata().withName("ssa-conflict").withNamespace(NAMESPACE).endMetadata()
        .withNewSpec().addToSelector("app", "ssa-conflict").addNewPort().withName("http").withPort(80)
        .withTargetPort(new IntOrString(targetPort)).endPort().endSpec().build();
  }

  private static int targetPort(KubernetesClient client) {
    return client.services().inNamespace(NAMESPACE).withName("ssa-conflict").get().getSpec().getPorts().get(0)
        .getTargetPort().getIntVal();
  }

  private static List<String> managers(KubernetesClient client) {
    return client.services().inNamespace(NAMESPACE).withName("ssa-conflict").get().getMetadata().getManagedFields()
        .stream().map(m -> m.getManager()).toList();
  }

  record Result(int exitCode, String output) {}

  private static Result kubectl(LocalKubernetes kube, String input, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(kube.tools().kubectl().toString(), "--kubeconfig",
        kube.kubeconfig().toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(1, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("kubectl ran past a minute");
    }
    return new Result(process.exitValue(), output);
  }
}
