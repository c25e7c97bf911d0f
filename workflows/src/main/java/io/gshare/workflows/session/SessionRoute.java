package io.gshare.workflows.session;

import io.gshare.workflows.common.WireEnum;
import java.util.Locale;

/**
 * How a cluster routes session URLs to session pods, set per cluster ({@code session_routing}).
 *
 * @param routing the router
 * @param gatewayNamespace with {@link Routing#GATEWAY_API}: the namespace of the cluster's Gateway
 * @param gatewayName with {@link Routing#GATEWAY_API}: its name; the session's HTTPRoute attaches to it
 */
public record SessionRoute(Routing routing, String gatewayNamespace, String gatewayName) {

  /** What clusters had before the setting existed, and what a session recorded then replays as. */
  public static final SessionRoute INGRESS_NGINX = new SessionRoute(Routing.INGRESS_NGINX, null, null);

  /** The routers gShare writes objects for. */
  public enum Routing implements WireEnum {
    /** An Ingress per session whose ingress-nginx auth-url asks the control plane (the operator guides' path). */
    INGRESS_NGINX,
    /** An HTTPRoute per session on the cluster's Gateway and an Envoy Gateway SecurityPolicy with extAuth. */
    GATEWAY_API;

    /** {@code ingress-nginx}, {@code gateway-api}: the wire and database value. */
    @Override
    public String wireName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Routing fromWire(String value) {
      return WireEnum.parse(Routing.class, value).orElseThrow(() -> new IllegalArgumentException(
          "session_routing must be ingress-nginx or gateway-api, not '" + value + "'"));
    }
  }

  /** A recorded spec from before the setting (null) routes as it did then. */
  public static SessionRoute orDefault(SessionRoute route) {
    return route == null ? INGRESS_NGINX : route;
  }
}
