package io.gshare.workflows.session;

import java.util.Locale;

/**
 * How a session's URL is spelled around its cluster's session domain: the scheme and port the cluster's ingress
 * answers on. Production is {@code https} on the default port ({@link #HTTPS}); the dev runtime's loopback nginx
 * answers plain {@code http} on a port of its own.
 *
 * @param scheme {@code https} or {@code http}
 * @param port the ingress's port; 0: the scheme's default (not written into the URL)
 */
public record SessionUrlForm(String scheme, int port) {

  /** What every cluster's ingress answers on unless configured otherwise, and what specs without a form mean. */
  public static final SessionUrlForm HTTPS = new SessionUrlForm("https", 0);

  public SessionUrlForm {
    scheme = scheme == null ? "https" : scheme.toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      throw new IllegalArgumentException("a session URL's scheme is https or http, not " + scheme);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("a session URL's port is 0 (the scheme's) or 1-65535, not " + port);
    }
  }

  /** {@code <scheme>://<domain>[:<port>]/s/<sessionId>/}; a null form is {@link #HTTPS}. */
  public static String urlOf(SessionUrlForm form, String sessionDomain, String sessionId) {
    return originOf(form, sessionDomain) + "/s/" + sessionId + "/";
  }

  /** {@code <scheme>://<domain>[:<port>]}; a null form is {@link #HTTPS}. */
  public static String originOf(SessionUrlForm form, String sessionDomain) {
    SessionUrlForm f = form == null ? HTTPS : form;
    boolean defaultPort = f.port == 0 || (f.port == 443 && f.scheme.equals("https")) || (f.port == 80 && f.scheme.equals("http"));
    return f.scheme + "://" + sessionDomain + (defaultPort ? "" : ":" + f.port);
  }
}
