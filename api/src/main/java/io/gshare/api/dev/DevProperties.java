package io.gshare.api.dev;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings only the dev runtime sets.
 *
 * @param adminTokenFile where to write a super admin's API token at start, for the dev runtime's banner
 * @param allowLoopbackKubeconfig accept kubeconfigs whose server is a loopback address: the dev
 *     runtime's simulated clusters listen on 127.0.0.1; never set outside it
 */
@Validated
@ConfigurationProperties(prefix = "gshare.dev", ignoreUnknownFields = false)
public record DevProperties(Path adminTokenFile, @DefaultValue("false") boolean allowLoopbackKubeconfig) {}
