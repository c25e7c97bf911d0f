package io.gshare.sim;

/** The Kubernetes storage keys the simulator writes and reads, as the control plane's own components do. */
final class StorageKeys {

  /** On the default StorageClass; the beta key is still honoured by Kubernetes. */
  static final String DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";
  static final String BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class";
  /** The finalizer the StorageObjectInUseProtection admission plugin puts on every claim. */
  static final String PVC_PROTECTION = "kubernetes.io/pvc-protection";
  /** On a claim, once provisioning started: the provisioner that serves it. */
  static final String STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
  static final String BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner";
  /** On a claim bound by the PV controller. */
  static final String BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
  static final String BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
  /** On a dynamically provisioned volume: its provisioner. */
  static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
  /** The claim condition of an expansion in progress. */
  static final String RESIZING = "Resizing";

  private StorageKeys() {}
}
