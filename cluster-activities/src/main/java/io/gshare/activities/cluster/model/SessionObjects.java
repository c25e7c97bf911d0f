package io.gshare.activities.cluster.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import io.gshare.workflows.kube.Annotations;
import io.gshare.workflows.kube.KubeNames;
import io.gshare.workflows.kube.LabelKeys;
import io.gshare.workflows.kube.Labels;
import io.gshare.workflows.session.CheckpointImage;
import io.gshare.workflows.session.SessionPod;
import io.gshare.workflows.session.SessionRoute;
import io.gshare.workflows.session.SessionVolume;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's objects in its cluster, as pure functions: the pod pinned to its GPUs, a ClusterIP
 * Service, and an Ingress on the cluster's session domain at {@code /s/<sessionId>} whose ingress-nginx
 * auth-url asks the control plane who may open it (see docs/session-urls.md). Names are derived from
 * the session id, so a retried activity finds what an earlier attempt made.
 */
public final class SessionObjects {

  public static final String NAMESPACE = KubeNames.SESSIONS_NAMESPACE;
  public static final String CONTAINER = "session";
  /** Where the kubelet writes checkpoint archives (KEP-2008). */
  public static final String KUBELET_CHECKPOINTS = "/var/lib/kubelet/checkpoints";

  /**
   * The builder's script: an image of the archive, annotated with the container it restores, pushed to
   * the cluster's LAN registry (HTTP, as the bootstrap sets it up), then the archive removed from the node.
   */
  static final String BUILD_SCRIPT = """
      set -eu
      ctr=$(buildah from scratch)
      buildah add "$ctr" "$ARCHIVE" /
      buildah config --annotation "io.kubernetes.cri-o.annotations.checkpoint.name=$CONTAINER" "$ctr"
      buildah commit "$ctr" "$IMAGE"
      buildah push --tls-verify="$TLS_VERIFY" "$IMAGE"
      rm -f "$ARCHIVE"
      """;
  /** The group of Jupyter's docker-stacks user (jovyan): the volume is made writable for it. */
  static final long USERS_GROUP = 100L;

  private SessionObjects() {}

  /** {@code ses_k2j8} → {@code gshare-ses-k2j8}: the pod, Service and Ingress of a session. */
  public static String name(String sessionId) {
    return KubeNames.of("gshare", sessionId);
  }

  /** The labels of a session's pod, Service and Ingress. */
  public static Labels labels(SessionPod s) {
    return Labels.gshare().withComponent("session").withSession(s.sessionId()).withUser(s.userId());
  }

  public static Pod pod(SessionPod s) {
    String base = "/s/" + s.sessionId() + "/";
    Container container = new ContainerBuilder()
        .withName(CONTAINER)
        // A lossless resume runs the checkpoint image: the runtime restores the container from it.
        .withImage(s.checkpoint() != null ? s.checkpoint() : s.imageReference())
        .addNewPort().withName("http").withContainerPort(s.port()).endPort()
        .withEnv(
            new EnvVarBuilder().withName("GSHARE_SESSION_ID").withValue(s.sessionId()).build(),
            new EnvVarBuilder().withName("GSHARE_BASE_URL").withValue(base).build(),
            // Jupyter's own name for the prefix it serves under.
            new EnvVarBuilder().withName("JUPYTERHUB_SERVICE_PREFIX").withValue(base).build())
        .withResources(HamiPlacement.resources(s.placement()))
        .build();
    if (s.volume() != null) {
      container.getEnv().add(new EnvVarBuilder().withName("GSHARE_VOLUME_PATH").withValue(s.volume().mountPath()).build());
      container.getVolumeMounts().add(new VolumeMountBuilder().withName("volume")
          .withMountPath(s.volume().mountPath()).build());
    }
    Map<String, String> annotations = new LinkedHashMap<>(HamiPlacement.annotations(s.placement()));
    if (s.checkpoint() != null) {
      annotations.put(Annotations.RESTORE_FROM_CHECKPOINT, s.checkpoint());
      annotations.put(Annotations.IMAGE, s.imageReference());
    }
    PodSpec spec = new PodSpec();
    spec.setContainers(List.of(container));
    spec.setRestartPolicy("Never");
    spec.setEnableServiceLinks(false);
    HamiPlacement.pin(spec, s.placement());
    if (s.volume() != null) {
      spec.setVolumes(List.of(new VolumeBuilder().withName("volume")
          .withNewPersistentVolumeClaim().withClaimName(s.volume().claimName()).endPersistentVolumeClaim().build()));
      spec.setSecurityContext(new PodSecurityContextBuilder().withFsGroup(USERS_GROUP)
          .withFsGroupChangePolicy("OnRootMismatch").build());
    }
    return new PodBuilder()
        .withNewMetadata().withName(name(s.sessionId())).withNamespace(NAMESPACE).withLabels(labels(s).toMap())
        .withAnnotations(annotations).endMetadata()
        .withSpec(spec)
        .build();
  }

  /**
   * The claim of a session's volume in its cluster: ReadWriteOnce (local-path offers nothing else, and a
   * volume serves one live session at a time), sized to the volume's quota, in the pool's StorageClass.
   */
  public static PersistentVolumeClaim claim(SessionVolume volume) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(volume.claimName()).withNamespace(NAMESPACE)
        .withLabels(Labels.gshare().withComponent("volume").withVolume(volume.volumeId()).toMap()).endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(volume.storageClass())
        .withNewResources().addToRequests("storage", new Quantity(volume.sizeGb() + "Gi")).endResources()
        .endSpec()
        .build();
  }

  /** {@code ses_k2j8} → {@code gshare-ckpt-ses-k2j8}: the builder pod of a session's checkpoint. */
  public static String builderName(String sessionId) {
    return KubeNames.of("gshare-ckpt", sessionId);
  }

  /**
   * The pod that turns a checkpoint archive into an image on the node holding it: bound to that node by
   * name, the kubelet's checkpoint directory mounted, buildah with the vfs driver (privileged: it
   * mounts), at most 20 minutes. It carries no session label, so it is never taken for the session.
   */
  public static Pod checkpointBuilder(CheckpointImage c) {
    Container builder = new ContainerBuilder()
        .withName("build")
        .withImage(c.builderImage())
        .withCommand("/bin/sh", "-c", BUILD_SCRIPT)
        .withEnv(
            new EnvVarBuilder().withName("ARCHIVE").withValue(c.archive()).build(),
            new EnvVarBuilder().withName("IMAGE").withValue(c.imageReference()).build(),
            new EnvVarBuilder().withName("CONTAINER").withValue(CONTAINER).build(),
            new EnvVarBuilder().withName("TLS_VERIFY").withValue("false").build(),
            new EnvVarBuilder().withName("STORAGE_DRIVER").withValue("vfs").build(),
            new EnvVarBuilder().withName("BUILDAH_ISOLATION").withValue("chroot").build())
        .withNewSecurityContext().withPrivileged(true).endSecurityContext()
        .addNewVolumeMount().withName("checkpoints").withMountPath(KUBELET_CHECKPOINTS).endVolumeMount()
        .withNewResources().addToRequests("cpu", new Quantity("500m")).addToRequests("memory", new Quantity("512Mi"))
        .endResources()
        .build();
    return new PodBuilder()
        .withNewMetadata().withName(builderName(c.sessionId())).withNamespace(NAMESPACE)
        .withLabels(Labels.gshare().withComponent("checkpoint-image").withCheckpointOf(c.sessionId()).toMap()).endMetadata()
        .withNewSpec()
        .withNodeName(c.hostname())
        .withRestartPolicy("Never")
        .withActiveDeadlineSeconds(1200L)
        .withEnableServiceLinks(false)
        .withContainers(builder)
        .addNewVolume().withName("checkpoints").withNewHostPath().withPath(KUBELET_CHECKPOINTS).withType("Directory")
        .endHostPath().endVolume()
        .endSpec()
        .build();
  }

  public static Service service(SessionPod s) {
    return new ServiceBuilder()
        .withNewMetadata().withName(name(s.sessionId())).withNamespace(NAMESPACE).withLabels(labels(s).toMap()).endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        // The session id alone: the pod carries it for its whole life.
        .withSelector(Map.of(LabelKeys.SESSION_ID, s.sessionId()))
        .addNewPort().withName("http").withPort(s.port()).withTargetPort(new IntOrString(s.port())).endPort()
        .endSpec()
        .build();
  }

  /** The query parameter of the one-time code the console's {@code /auth/connect} sends a browser back with. */
  public static final String SIGN_IN_CODE_PARAM = "gshare_code";

  public static Ingress ingress(SessionPod s) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(Annotations.NGINX_AUTH_URL, s.authUrl());
    annotations.put(Annotations.NGINX_AUTH_METHOD, "GET");
    annotations.put(Annotations.NGINX_AUTH_RESPONSE_HEADERS, "X-Gshare-User,X-Gshare-Session");
    // Per session AND per caller: a key without the caller would let one user's 200 open it for all.
    // The one-time code too: a request that carries one is answered (and cached) for that code alone.
    annotations.put(Annotations.NGINX_AUTH_CACHE_KEY, s.sessionId() + "$cookie_gshare_token$http_authorization$arg_"
        + SIGN_IN_CODE_PARAM);
    if (s.signInUrl() != null && !s.signInUrl().isBlank()) {
      // A 401 (no cookie on the session domain) sends the browser to sign in, and back with a one-time code.
      annotations.put(Annotations.NGINX_AUTH_SIGNIN, s.signInUrl());
    }
    annotations.put(Annotations.NGINX_AUTH_CACHE_DURATION, "200 30s");
    annotations.put(Annotations.NGINX_PROXY_READ_TIMEOUT, "3600");
    annotations.put(Annotations.NGINX_PROXY_SEND_TIMEOUT, "3600");
    annotations.put(Annotations.NGINX_PROXY_BODY_SIZE, "512m");
    return new IngressBuilder()
        .withNewMetadata().withName(name(s.sessionId())).withNamespace(NAMESPACE).withLabels(labels(s).toMap())
        .withAnnotations(annotations).endMetadata()
        .withNewSpec()
        .withIngressClassName("nginx")
        .addNewRule()
        .withHost(s.sessionDomain())
        .withNewHttp()
        .addNewPath().withPath("/s/" + s.sessionId()).withPathType("Prefix")
        .withNewBackend().withNewService().withName(name(s.sessionId())).withNewPort().withNumber(s.port()).endPort()
        .endService().endBackend()
        .endPath()
        .endHttp()
        .endRule()
        .endSpec()
        .build();
  }

  // Gateway API routing (a cluster's session_routing gateway-api): an HTTPRoute per session on the cluster's
  // Gateway, an Envoy Gateway SecurityPolicy asking the control plane (extAuth), and one Backend naming the
  // control plane's address in the sessions' namespace (Envoy Gateway's Backend API must be enabled).

  /** A namespaced kind gShare writes without a typed model (the client needs its plural, not discovery). */
  public record Kind(String group, String version, String kind, String plural) {}

  public static final Kind HTTP_ROUTE = new Kind("gateway.networking.k8s.io", "v1", "HTTPRoute", "httproutes");
  public static final Kind SECURITY_POLICY = new Kind("gateway.envoyproxy.io", "v1alpha1", "SecurityPolicy",
      "securitypolicies");
  public static final Kind BACKEND = new Kind("gateway.envoyproxy.io", "v1alpha1", "Backend", "backends");
  /** The Backend every session's SecurityPolicy sends its check to. */
  public static final String AUTH_BACKEND = "gshare-control-plane";

  private static GenericKubernetesResource generic(Kind type, String name, Labels labels, Map<String, Object> spec) {
    GenericKubernetesResource object = new GenericKubernetesResource();
    object.setApiVersion(type.group() + "/" + type.version());
    object.setKind(type.kind());
    object.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE)
        .withLabels(labels.toMap()).build());
    object.setAdditionalProperty("spec", spec);
    return object;
  }

  /** The session's route: its domain and {@code /s/<sessionId>} to its Service, on the cluster's Gateway. */
  public static GenericKubernetesResource httpRoute(SessionPod s) {
    SessionRoute route = s.routeOrDefault();
    return generic(HTTP_ROUTE, name(s.sessionId()), labels(s), Map.of(
        "parentRefs", List.of(Map.of("name", route.gatewayName(), "namespace", route.gatewayNamespace())),
        "hostnames", List.of(s.sessionDomain()),
        "rules", List.of(Map.of(
            "matches", List.of(Map.of("path", Map.of("type", "PathPrefix", "value", "/s/" + s.sessionId()))),
            "backendRefs", List.of(Map.of("name", name(s.sessionId()), "port", s.port())),
            // Notebooks keep websockets open for hours, as the Ingress's proxy timeouts allow.
            "timeouts", Map.of("request", "0s")))));
  }

  /**
   * Who may open the route: Envoy Gateway's external auth sends each request's method, path (after the
   * auth URL's path), Host, cookie and Authorization to the control plane's {@code /internal/connect/verify},
   * which answers as it answers ingress-nginx.
   */
  public static GenericKubernetesResource securityPolicy(SessionPod s) {
    URI auth = URI.create(s.authUrl());
    return generic(SECURITY_POLICY, name(s.sessionId()), labels(s), Map.of(
        "targetRefs", List.of(Map.of("group", "gateway.networking.k8s.io", "kind", "HTTPRoute",
            "name", name(s.sessionId()))),
        "extAuth", Map.of(
            "headersToExtAuth", List.of("cookie", "authorization"),
            "http", Map.of(
                "backendRefs", List.of(Map.of("group", "gateway.envoyproxy.io", "kind", "Backend", "name", AUTH_BACKEND)),
                "path", auth.getRawPath() == null || auth.getRawPath().isEmpty() ? "/" : auth.getRawPath(),
                "headersToBackend", List.of("x-gshare-user", "x-gshare-session")))));
  }

  /** The control plane's address as the cluster reaches it (the auth URL's host and port), for the policies. */
  public static GenericKubernetesResource authBackend(SessionPod s) {
    URI auth = URI.create(s.authUrl());
    int port = auth.getPort() > 0 ? auth.getPort() : "https".equals(auth.getScheme()) ? 443 : 80;
    return generic(BACKEND, AUTH_BACKEND, Labels.managedByGshare(), Map.of(
        "endpoints", List.of(Map.of("fqdn", Map.of("hostname", auth.getHost(), "port", port)))));
  }
}
