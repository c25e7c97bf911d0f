package io.gshare.api.security;

/** The console's files, served by the api from {@code classpath:/static} without a token. */
public final class ConsolePaths {

  public static final String ROOT = "/";
  public static final String INDEX = "/index.html";
  /** Scripts and styles. */
  public static final String ASSETS = "/console/";

  private ConsolePaths() {}

  static boolean isConsole(String path) {
    return path.equals(ROOT) || path.equals(INDEX) || path.startsWith(ASSETS) && !path.contains("..");
  }
}
