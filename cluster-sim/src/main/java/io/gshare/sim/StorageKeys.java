package io.gshare.sim;

/** The Kubernetes storage keys the simulator writes and reads, as the control plane's own components do. */
final class StorageKeys {

  /** On the default StorageClass; the beta key is still honoured by Kubernetes. */
  static final String DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";
  static final String BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class";

  private StorageKeys() {}
}
