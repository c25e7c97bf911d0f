package io.gshare.api.security;

import java.time.Duration;

/**
 * Issues the user token a signed-in browser's cookie carries. The users' service does; the filter chains ask it
 * through this interface, so that {@code security} does not depend on {@code user}, which depends on it.
 */
public interface BrowserTokens {

  /** A fresh user token for {@code userId}, named {@code browser}, that lives {@code ttl}. */
  String issueBrowserToken(String userId, Duration ttl);
}
