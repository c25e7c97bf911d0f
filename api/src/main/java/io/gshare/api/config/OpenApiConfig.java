package io.gshare.api.config;

import io.gshare.api.security.Caller;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The served OpenAPI document: title, version, security (its error contract: {@code error.ProblemDocumentation}). */
@Configuration(proxyBeanMethods = false)
class OpenApiConfig {

  static {
    // The caller comes from the bearer token, not from the request: keep it out of the parameters.
    SpringDocUtils.getConfig()
        .addRequestWrapperToIgnore(Caller.User.class, Caller.Operator.class);
  }

  @Bean
  OpenAPI gshareOpenApi(ObjectProvider<BuildProperties> build) {
    BuildProperties info = build.getIfAvailable();
    return new OpenAPI().info(new Info()
        .title("gShare API")
        .description("Control plane of gShare, the self-hosted GPU-sharing platform. Errors are RFC 9457 "
            + "application/problem+json with a stable `code` (e.g. unserviceable, insufficient_capacity, node_busy).")
        .version(info == null ? "dev" : info.getVersion())
        // An SPDX reference of its own: the API is not under a published licence.
        .license(new License().name("Proprietary").identifier("LicenseRef-Proprietary")))
        .components(new Components().addSecuritySchemes("bearer",
            new SecurityScheme()
                .type(SecurityScheme.Type.HTTP).scheme("bearer").bearerFormat("JWT")
                .description("/api: a user API token; /internal: a cluster-worker's operator token")))
        .addSecurityItem(new SecurityRequirement().addList("bearer"));
  }
}
