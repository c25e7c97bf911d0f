package io.gshare.core.volume;

/**
 * The StorageClass a volume's claim asks for when neither its pool nor its cluster names one (the chart's
 * {@code operator.volumeStorageClass}, {@code gshare.volumes.default-storage-class}, e.g. {@code gshare-data} of the
 * bootstrap guide's storage node).
 *
 * @param name null or blank: none, and the claim takes the cluster's default class
 */
public record DefaultVolumeStorageClass(String name) {

  public static final DefaultVolumeStorageClass NONE = new DefaultVolumeStorageClass(null);

  public DefaultVolumeStorageClass {
    name = name == null || name.isBlank() ? null : name.strip();
  }
}
