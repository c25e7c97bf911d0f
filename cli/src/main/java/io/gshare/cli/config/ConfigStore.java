package io.gshare.cli.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gshare.cli.support.CliException;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Function;

/**
 * The config file, {@code <config dir>/config.yaml}: read whole, written whole to a temporary file made 0600 before
 * the token goes in, then moved over the old one, so a crash never leaves half a file or a readable token.
 */
public final class ConfigStore {

  public static final String FILE_NAME = "config.yaml";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .registerModule(new JavaTimeModule())
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path dir;

  public ConfigStore(Path dir) {
    this.dir = dir;
  }

  /**
   * The directory the config lives in: {@code $GSHARE_CONFIG_DIR}, else {@code $XDG_CONFIG_HOME/gshare}, else
   * {@code ~/.config/gshare}.
   */
  public static Path defaultDir(Function<String, String> env) {
    String explicit = env.apply("GSHARE_CONFIG_DIR");
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    String xdg = env.apply("XDG_CONFIG_HOME");
    if (xdg != null && !xdg.isBlank()) {
      return Path.of(xdg, "gshare");
    }
    return Path.of(System.getProperty("user.home"), ".config", "gshare");
  }

  public Path file() {
    return dir.resolve(FILE_NAME);
  }

  public CliConfig load() {
    Path file = file();
    if (!Files.exists(file)) {
      return CliConfig.empty();
    }
    try {
      CliConfig config = YAML.readValue(file.toFile(), CliConfig.class);
      return config == null ? CliConfig.empty() : config;
    } catch (IOException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  public void save(CliConfig config) {
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    try {
      if (!Files.isDirectory(dir)) {
        if (posix) {
          Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
          Files.createDirectories(dir);
        }
      }
      Path temporary = posix
          ? Files.createTempFile(dir, ".config", ".yaml",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
          : Files.createTempFile(dir, ".config", ".yaml");
      try {
        YAML.writeValue(temporary.toFile(), config);
        try {
          Files.move(temporary, file(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temporary, file(), StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temporary);
      }
    } catch (IOException e) {
      throw new CliException("cannot write " + file() + ": " + e.getMessage(), e);
    }
  }
}
