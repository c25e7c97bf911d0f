package io.gshare.api.config;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The served OpenAPI document: title, version, and the problem+json shape every error takes. */
@Configuration(proxyBeanMethods = false)
class OpenApiConfig {

  static final String PROBLEM = "Problem";

  static {
    // The caller comes from the bearer token, not from the request: keep it out of the parameters.
    org.springdoc.core.utils.SpringDocUtils.getConfig()
        .addRequestWrapperToIgnore(io.gshare.api.security.Caller.User.class, io.gshare.api.security.Caller.Operator.class);
  }

  @Bean
  OpenAPI gshareOpenApi(ObjectProvider<BuildProperties> build) {
    BuildProperties info = build.getIfAvailable();
    return new OpenAPI().info(new Info()
        .title("gShare API")
        .description("Control plane of gShare, the self-hosted GPU-sharing platform. Errors are RFC 9457 "
            + "application/problem+json with a stable `code` (e.g. unserviceable, insufficient_capacity, node_busy).")
        .version(info == null ? "dev" : info.getVersion())
        .license(new License().name("Proprietary")))
        .components(new io.swagger.v3.oas.models.Components().addSecuritySchemes("bearer",
            new io.swagger.v3.oas.models.security.SecurityScheme()
                .type(io.swagger.v3.oas.models.security.SecurityScheme.Type.HTTP).scheme("bearer").bearerFormat("JWT")
                .description("/api: a user API token; /internal: a cluster-worker's operator token")))
        .addSecurityItem(new io.swagger.v3.oas.models.security.SecurityRequirement().addList("bearer"));
  }

  /** Every operation may answer a problem document; say so once, for all of them. */
  @Bean
  OpenApiCustomizer problemResponses() {
    return openApi -> {
      Schema<?> problem = new ObjectSchema()
          .addProperty("type", new StringSchema().example("urn:gshare:problem:not_found"))
          .addProperty("title", new StringSchema())
          .addProperty("status", new IntegerSchema())
          .addProperty("detail", new StringSchema())
          .addProperty("instance", new StringSchema())
          .addProperty("code", new StringSchema().example("not_found"));
      openApi.getComponents().addSchemas(PROBLEM, problem);
      ApiResponse error = new ApiResponse().description("An RFC 9457 problem document")
          .content(new Content().addMediaType("application/problem+json",
              new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM))));
      openApi.getPaths().values().forEach(path -> path.readOperations()
          .forEach(operation -> operation.getResponses().addApiResponse("default", error)));
    };
  }
}
