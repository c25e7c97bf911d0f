package io.gshare.api.dev;

import io.gshare.api.support.SecretFiles;
import io.gshare.api.user.UserService;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** In the dev runtime, hands the person at the keyboard a super admin token (the same as bootstrap-superadmin). */
@Component
@ConditionalOnProperty(prefix = "gshare.dev", name = "admin-token-file")
class DevAdminToken implements ApplicationRunner {

  private final DevProperties properties;
  private final UserService users;

  DevAdminToken(DevProperties properties, UserService users) {
    this.properties = properties;
    this.users = users;
  }

  @Override
  public void run(ApplicationArguments args) {
    SecretFiles.write(properties.adminTokenFile(), users.bootstrapSuperAdmin("superadmin@example.com").token());
  }
}
