package io.gshare.api.security;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.stereotype.Component;

/**
 * Matches requests that arrived on the management server ({@code management.server.port}), learned from
 * the server itself so a random test port works too. Spring Boot hands the management server the same
 * security filter chains; this is how they tell its requests from the api's.
 */
@Component
class ManagementPort implements ApplicationListener<WebServerInitializedEvent>, RequestMatcher {

  static final String NAMESPACE = "management";

  private volatile int port = -1;

  @Override
  public void onApplicationEvent(WebServerInitializedEvent event) {
    if (NAMESPACE.equals(event.getApplicationContext().getServerNamespace())) {
      port = event.getWebServer().getPort();
    }
  }

  @Override
  public boolean matches(HttpServletRequest request) {
    return port > 0 && request.getLocalPort() == port;
  }
}
