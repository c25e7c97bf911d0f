-- How each cluster routes session URLs: ingress-nginx (an Ingress per session with auth-url, the operator guides'
-- path; ingress-nginx reached its end of maintenance in March 2026) or gateway-api (an HTTPRoute per session on
-- the cluster's Gateway, namespace/name, with an Envoy Gateway SecurityPolicy asking the control plane).
alter table clusters
    add column session_routing text not null default 'ingress-nginx'
        check (session_routing in ('ingress-nginx', 'gateway-api')),
    add column session_gateway text
        check (session_gateway is null
               or session_gateway ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$'),
    add constraint clusters_gateway_named check (session_routing <> 'gateway-api' or session_gateway is not null);
