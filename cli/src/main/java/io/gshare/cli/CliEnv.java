package io.gshare.cli;

import io.gshare.cli.config.ConfigStore;
import io.gshare.cli.support.Terminal;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/**
 * What a run of the CLI sees of the world, so tests run it in-process: the terminal, the config dir, the
 * environment, how a URL is opened in a browser, and how often long operations are polled.
 */
public record CliEnv(Terminal terminal, ConfigStore config, Function<String, String> env, Browser browser,
    Duration pollInterval) {

  /** Opens a URL in the user's browser; false when there is none to open it in (the URL is printed instead). */
  @FunctionalInterface
  public interface Browser {
    boolean open(URI url);
  }

  public static CliEnv system() {
    Function<String, String> env = System::getenv;
    return new CliEnv(Terminal.system(env), new ConfigStore(ConfigStore.defaultDir(env)), env,
        CliEnv::openWithDesktop, Duration.ofSeconds(1));
  }

  /** {@code $BROWSER}, else xdg-open (Linux) or open (macOS); nothing on a headless machine. */
  static boolean openWithDesktop(URI url) {
    String browser = System.getenv("BROWSER");
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String command = browser != null && !browser.isBlank() ? browser : os.contains("mac") ? "open" : "xdg-open";
    if (!os.contains("mac") && (browser == null || browser.isBlank()) && System.getenv("DISPLAY") == null
        && System.getenv("WAYLAND_DISPLAY") == null) {
      return false;
    }
    try {
      Process process = new ProcessBuilder(command, url.toString()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return process.waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
