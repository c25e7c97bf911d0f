package io.gshare.api;

import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The gShare control plane. {@code --mode=worker} runs the control worker alone, without the web
 * layer, for deployments that scale the two apart.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class GshareApiApplication {

  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(GshareApiApplication.class);
    if (Arrays.asList(args).contains("--mode=worker")) {
      app.setWebApplicationType(WebApplicationType.NONE);
    }
    app.run(args);
  }
}
