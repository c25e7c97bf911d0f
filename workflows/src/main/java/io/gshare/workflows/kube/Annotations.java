package io.gshare.workflows.kube;

/** Every annotation key gShare reads or writes in a cluster, defined once (see {@link LabelKeys} for why here). */
public final class Annotations {

  // gShare's own, on a restored session pod.
  /** The checkpoint image the pod runs. */
  public static final String RESTORE_FROM_CHECKPOINT = "gshare.io/restore-from-checkpoint";
  /** The session's own image, which a restored pod does not run. */
  public static final String IMAGE = "gshare.io/image";

  // HAMi's.
  /** On a node, written by HAMi's device plugin (and the simulator): its GPUs, in either of HAMi's encodings. */
  public static final String HAMI_NODE_REGISTER = "hami.io/node-nvidia-register";
  /** On a session pod: the only GPUs HAMi may give it. */
  /** HAMi 2.10+: GPUs of the node it must not schedule on, a comma list of UUIDs. */
  public static final String HAMI_DEVICE_CORDON = "hami.io/device-cordon";
  /** The kubelet's mark on a static pod's mirror; such a pod cannot be evicted through the apiserver. */
  public static final String MIRROR_POD = "kubernetes.io/config.mirror";
  public static final String HAMI_USE_GPU_UUID = "nvidia.com/use-gpuuuid";

  // ingress-nginx's, on a session's Ingress.
  public static final String NGINX_AUTH_URL = "nginx.ingress.kubernetes.io/auth-url";
  public static final String NGINX_AUTH_METHOD = "nginx.ingress.kubernetes.io/auth-method";
  public static final String NGINX_AUTH_RESPONSE_HEADERS = "nginx.ingress.kubernetes.io/auth-response-headers";
  public static final String NGINX_AUTH_CACHE_KEY = "nginx.ingress.kubernetes.io/auth-cache-key";
  /** Where ingress-nginx redirects a 401, with the original URL appended as {@code rd}. */
  public static final String NGINX_AUTH_SIGNIN = "nginx.ingress.kubernetes.io/auth-signin";
  public static final String NGINX_AUTH_CACHE_DURATION = "nginx.ingress.kubernetes.io/auth-cache-duration";
  public static final String NGINX_PROXY_READ_TIMEOUT = "nginx.ingress.kubernetes.io/proxy-read-timeout";
  public static final String NGINX_PROXY_SEND_TIMEOUT = "nginx.ingress.kubernetes.io/proxy-send-timeout";
  public static final String NGINX_PROXY_BODY_SIZE = "nginx.ingress.kubernetes.io/proxy-body-size";

  private Annotations() {}
}
