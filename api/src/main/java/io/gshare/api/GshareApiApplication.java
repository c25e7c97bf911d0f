package io.gshare.api;

import io.gshare.api.cli.BootstrapSuperAdminCommand;
import io.gshare.api.cli.InternalJwtCommand;
import io.gshare.api.security.Tokens;
import java.util.Arrays;
import java.util.Map;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The gShare control plane. {@code --mode=worker} runs the control worker alone, without the web
 * layer. Two commands run inside the api container and print only a token:
 * {@code sign-internal-jwt operator:<clusterId> [--ttl SECONDS]} and {@code bootstrap-superadmin}.
 */
@SpringBootApplication(scanBasePackages = {"io.gshare.api", "io.gshare.core"})
@ConfigurationPropertiesScan
@EnableScheduling
public class GshareApiApplication {

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals(InternalJwtCommand.NAME)) {
      if (!InternalJwtCommand.keysInDatabase(System.getenv())) {
        System.exit(InternalJwtCommand.run(args, System.getenv(), System.out, System.err));
      }
      InternalJwtCommand.Request request = InternalJwtCommand.parse(args, System.err);
      if (request == null) {
        System.exit(2);
      }
      try (ConfigurableApplicationContext context = quietContext(args)) {
        System.exit(InternalJwtCommand.run(context.getBean(Tokens.class), request, System.out));
      }
    }
    if (args.length > 0 && args[0].equals(BootstrapSuperAdminCommand.NAME)) {
      String email = BootstrapSuperAdminCommand.parse(args, System.err);
      if (email == null) {
        System.exit(2);
      }
      int code;
      try (ConfigurableApplicationContext context = quietContext(args)) {
        code = BootstrapSuperAdminCommand.run(context, email, System.out);
      }
      System.exit(code);
    }
    SpringApplication app = new SpringApplication(GshareApiApplication.class);
    if (Arrays.asList(args).contains("--mode=worker")) {
      app.setWebApplicationType(WebApplicationType.NONE);
    }
    app.run(args);
  }

  /** A context for a command: only its answer goes to stdout; no web server, no worker, no log on the console. */
  private static ConfigurableApplicationContext quietContext(String[] args) {
    SpringApplication app = new SpringApplication(GshareApiApplication.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    app.setDefaultProperties(Map.of("gshare.worker.enabled", "false", "logging.threshold.console", "OFF",
        "spring.main.log-startup-info", "false"));
    return app.run(Arrays.stream(args, 1, args.length).filter(a -> a.startsWith("--spring.") || a.startsWith("--gshare."))
        .toArray(String[]::new));
  }
}
