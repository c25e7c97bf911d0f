package io.gshare.api;

import io.gshare.api.cli.BootstrapSuperAdminCommand;
import io.gshare.api.cli.InternalJwtCommand;
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
      System.exit(InternalJwtCommand.run(args, System.getenv(), System.out, System.err));
    }
    if (args.length > 0 && args[0].equals(BootstrapSuperAdminCommand.NAME)) {
      String email = BootstrapSuperAdminCommand.parse(args, System.err);
      if (email == null) {
        System.exit(2);
      }
      SpringApplication app = new SpringApplication(GshareApiApplication.class);
      app.setWebApplicationType(WebApplicationType.NONE);
      app.setBannerMode(Banner.Mode.OFF);
      // Only the token goes to stdout; the context starts quietly and hosts no worker.
      app.setDefaultProperties(Map.of("gshare.worker.enabled", "false", "logging.threshold.console", "OFF",
          "spring.main.log-startup-info", "false"));
      int code;
      try (ConfigurableApplicationContext context = app.run(Arrays.copyOfRange(args, 1, args.length))) {
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
}
