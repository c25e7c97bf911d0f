package io.gshare.cli.support;

/** The CLI's version: the jar's Implementation-Version, {@code dev} when run from classes. */
public final class Version {

  private Version() {}

  public static String current() {
    String version = Version.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
