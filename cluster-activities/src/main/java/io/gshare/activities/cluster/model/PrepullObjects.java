package io.gshare.activities.cluster.model;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gshare.workflows.kube.Labels;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pod that pulls an image onto one node: pinned by {@code spec.nodeName} (no scheduler, so a cordoned
 * or full node still pulls), {@code imagePullPolicy: IfNotPresent}, a no-op command, never restarted, tiny
 * requests, tolerating every taint. Its name is a function of the image reference and the node, so a
 * retried activity finds it.
 */
public final class PrepullObjects {

  public static final String NAMESPACE = SessionObjects.NAMESPACE;
  public static final String COMPONENT = "image-prepull";
  /** Holds the short hash of the reference, so one list call finds every pod of one pull. */
  public static final String IMAGE_LABEL = "gshare.io/prepull-image";
  public static final String REFERENCE_ANNOTATION = "gshare.io/prepull-reference";
  public static final String IMAGE_ID_ANNOTATION = "gshare.io/image-id";

  private PrepullObjects() {}

  /** {@code gshare-prepull-<12 hex of sha256(reference)>-<12 hex of sha256(reference, node)>}: 42 characters. */
  public static String podName(String reference, String hostname) {
    return "gshare-prepull-" + hash(reference) + "-" + hash(reference + "\n" + hostname);
  }

  public static String imageLabel(String reference) {
    return hash(reference);
  }

  public static Pod pod(String imageId, String reference, String hostname) {
    Labels labels = Labels.gshare().withComponent(COMPONENT);
    Map<String, String> all = new LinkedHashMap<>(labels.toMap());
    all.put(IMAGE_LABEL, imageLabel(reference));
    return new PodBuilder()
        .withNewMetadata().withName(podName(reference, hostname)).withNamespace(NAMESPACE).withLabels(all)
        .withAnnotations(Map.of(REFERENCE_ANNOTATION, reference, IMAGE_ID_ANNOTATION, imageId)).endMetadata()
        .withNewSpec()
        .withNodeName(hostname)
        .withRestartPolicy("Never")
        .withAutomountServiceAccountToken(false)
        .withTerminationGracePeriodSeconds(0L)
        .addNewToleration().withOperator("Exists").endToleration()
        .addNewContainer()
        .withName("pull")
        .withImage(reference)
        .withImagePullPolicy("IfNotPresent")
        // The image only has to be on disk: if it has no shell the start fails, and the pull still counted.
        .withCommand("sh", "-c", "exit 0")
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("16Mi")))
        .withLimits(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("64Mi")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * Whether the node's {@code status.images} lists the reference, as written or as containerd normalises it
   * ({@code python:3.12} is listed as {@code docker.io/library/python:3.12}). The kubelet lists at most 50
   * images (nodeStatusMaxImages), so absence is not proof; the pod's IfNotPresent pulls nothing then anyway.
   */
  public static boolean present(Node node, String reference) {
    List<ContainerImage> images = node.getStatus() == null ? null : node.getStatus().getImages();
    if (images == null) {
      return false;
    }
    Set<String> wanted = spellings(reference);
    return images.stream().anyMatch(i -> i.getNames() != null && i.getNames().stream().anyMatch(wanted::contains));
  }

  static Set<String> spellings(String reference) {
    Set<String> names = new LinkedHashSet<>();
    names.add(reference);
    String withTag = reference;
    int slash = reference.lastIndexOf('/');
    if (!reference.contains("@") && reference.indexOf(':', slash + 1) < 0) {
      withTag = reference + ":latest";
      names.add(withTag);
    }
    int first = withTag.indexOf('/');
    String host = first < 0 ? "" : withTag.substring(0, first);
    boolean hasRegistry = first >= 0 && (host.contains(".") || host.contains(":") || host.equals("localhost"));
    if (!hasRegistry) {
      names.add("docker.io/" + (first < 0 ? "library/" : "") + withTag);
    }
    return names;
  }

  private static String hash(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
