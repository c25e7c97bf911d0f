#!/usr/bin/env bats
# charts/gshare and deploy/values: helm lint and helm template with the defaults and both values files, what the
# rendered objects must be (fixed names, security context, probes, the internal plane), the schema refusing
# misspelt keys, the generated database password, the README's values table, and the registration Job's script
# against stub kubectl and curl. Needs helm in .tools/bin (hack/tools.sh) and python3 with PyYAML.
# shellcheck disable=SC2154 # status, output and stderr are set by bats' run

load chart_support

setup() {
  chart_setup
}

# --- lint and render -------------------------------------------------------------------------------------------

@test "helm lint --strict passes with the default values" {
  run --separate-stderr "${HELM}" lint --strict "${CHART}" --namespace gshare-system
  echo "${output}${stderr}"
  [ "${status}" -eq 0 ]
}

@test "helm lint --strict passes with deploy/values/incluster.yaml" {
  run --separate-stderr "${HELM}" lint --strict "${CHART}" --namespace gshare-system -f "${VALUES_DIR}/incluster.yaml"
  echo "${output}${stderr}"
  [ "${status}" -eq 0 ]
}

@test "helm lint --strict passes with deploy/values/dockerhub.yaml" {
  run --separate-stderr "${HELM}" lint --strict "${CHART}" --namespace gshare-system -f "${VALUES_DIR}/dockerhub.yaml"
  echo "${output}${stderr}"
  [ "${status}" -eq 0 ]
}

@test "every rendered document has apiVersion, kind and metadata.name, for the defaults and both values files" {
  local values
  for values in "" "${VALUES_DIR}/incluster.yaml" "${VALUES_DIR}/dockerhub.yaml"; do
    if [ -n "${values}" ]; then render -f "${values}"; else render; fi
    check_docs <<'PY'
assert len(docs) >= 5, f"only {len(docs)} documents"
for d in docs:
    assert d.get("apiVersion") and d.get("kind"), f"a document without apiVersion/kind: {d}"
    assert d.get("metadata", {}).get("name"), f"{d['kind']} without metadata.name"
    ns = d["metadata"].get("namespace")
    assert ns in (None, "gshare-system"), f"{d['kind']}/{d['metadata']['name']} in {ns}"
PY
  done
}

@test "every image comes from the configured registries: no external registry hostname is hard-coded" {
  local values
  for values in "" "${VALUES_DIR}/incluster.yaml" "${VALUES_DIR}/dockerhub.yaml"; do
    if [ -n "${values}" ]; then render -f "${values}"; else render; fi
    check_docs <<'PY'
def images(spec):
    for c in spec.get("initContainers", []) + spec.get("containers", []):
        yield c["image"]
for d in docs:
    spec = d.get("spec", {})
    pod = spec.get("template", {}).get("spec") if d["kind"] in ("Deployment", "StatefulSet", "Job") else spec if d["kind"] == "Pod" else None
    for image in images(pod or {}):
        assert image.startswith("registry.example.com/"), f"{d['kind']}/{d['metadata']['name']}: {image}"
api = find("Deployment", "gshare-api")
e = env(container(api, "api"))
assert e["GSHARE_CLUSTERWORKER_IMAGE"] == "registry.example.com/gshare/gshare-cluster-worker:0.1.0", e["GSHARE_CLUSTERWORKER_IMAGE"]
assert container(api, "api")["image"] == "registry.example.com/gshare/gshare-api:0.1.0"
PY
  done
  run ! grep -rEn 'ghcr\.io|docker\.io|quay\.io|gcr\.io' "${CHART}" "${VALUES_DIR}"
}

# --- the api ---------------------------------------------------------------------------------------------------

@test "Deployment gshare-api: container api, non-root, read-only root, resources, liveness on /healthz, readiness on Postgres and Temporal" {
  render
  check_docs <<'PY'
api = find("Deployment", "gshare-api")
assert api, "no Deployment gshare-api"
pod = api["spec"]["template"]["spec"]
c = container(api, "api")
assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 65532
assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
sc = c["securityContext"]
assert sc["runAsNonRoot"] is True and sc["runAsUser"] == 65532
assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
assert sc["capabilities"]["drop"] == ["ALL"] and sc["seccompProfile"]["type"] == "RuntimeDefault"
for kind in ("requests", "limits"):
    assert c["resources"][kind]["cpu"] and c["resources"][kind]["memory"], f"no {kind}"
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
assert ports == {"http": 8080, "management": 9090, "temporal-gw": 7243}, ports
for probe in ("startupProbe", "livenessProbe"):
    get = c[probe]["httpGet"]
    assert get["path"] == "/healthz" and ports[get["port"]] == 8080, f"{probe}: {get}"
ready = c["readinessProbe"]["httpGet"]
assert ready["path"] == "/actuator/health/readiness" and ports[ready["port"]] == 9090, f"readinessProbe: {ready}"
mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
volumes = {v["name"]: v for v in pod["volumes"]}
assert "emptyDir" in volumes[mounts["/tmp"]], "no emptyDir at /tmp"
assert volumes[mounts["/var/lib/gshare/keys"]]["secret"]["secretName"] == "gshare-keys"
assert [m for m in c["volumeMounts"] if m["name"] == mounts["/var/lib/gshare/keys"]][0]["readOnly"] is True
assert env(c)["GSHARE_SECURITY_KEYSTORE"] == "database" and env(c)["GSHARE_SECURITY_GENERATEMISSINGKEYS"] == "false"
assert api["spec"]["replicas"] == 1 and api["spec"]["strategy"]["type"] == "RollingUpdate"
keys = find("Secret", "gshare-keys")
assert keys["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
import base64
for name in ("kubeconfig.key", "temporal-gateway-task-token.key"):
    assert len(base64.b64decode(base64.b64decode(keys["data"][name]))) == 32, name
assert find("PersistentVolumeClaim", "gshare-keys") is None
assert pod["serviceAccountName"] == "gshare-api" and find("ServiceAccount", "gshare-api")
svc = find("Service", "gshare-api")
assert [(p["name"], p["port"], p["targetPort"]) for p in svc["spec"]["ports"]] == [("http", 8080, "http"), ("temporal-gw", 7243, "temporal-gw")], "the Service must not route the management port"
pdb = find("PodDisruptionBudget", "gshare-api")
assert pdb["spec"]["maxUnavailable"] == 1
PY
}

@test "the api's environment names the settings of docs/configuration.md" {
  render
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
want = {
    "GSHARE_HTTP_PORT": "8080", "GSHARE_MANAGEMENT_PORT": "9090",
    "GSHARE_DB_URL": "jdbc:postgresql://gshare-db.gshare-system.svc:5432/gshare",
    "GSHARE_TEMPORAL_ADDRESS": "temporal-frontend.temporal.svc:7233", "GSHARE_TEMPORAL_NAMESPACE": "default",
    "GSHARE_TEMPORAL_UI_URL": "", "GSHARE_SECURITY_KEY_DIR": "/var/lib/gshare/keys", "GSHARE_SECURITY_ISSUER": "gshare",
    "GSHARE_CLUSTERWORKER_DEPLOY": "kubernetes", "GSHARE_CLUSTERWORKER_IMAGEPULLPOLICY": "IfNotPresent",
    "GSHARE_CLUSTERWORKER_TEMPORALADDRESS": "gshare-api.gshare-system.svc.cluster.local:7243",
    "GSHARE_CLUSTERWORKER_CONTROLPLANEURL": "http://gshare-api.gshare-system.svc.cluster.local:8080",
    "GSHARE_SESSIONS_AUTHURL": "http://gshare-api.gshare-system.svc.cluster.local:8080/internal/connect/verify",
    "GSHARE_NODE_STALE_SEC": "300", "GSHARE_VOLUME_RECLAIM_GRACE_HOURS": "24",
}
for name, value in want.items():
    assert e.get(name) == value, f"{name}={e.get(name)!r}, want {value!r}"
for name in ("GSHARE_DB_USER", "GSHARE_DB_PASSWORD"):
    assert e[name]["secretKeyRef"]["name"] == "gshare-db-credentials", name
assert "GSHARE_WORKER_ENABLED" not in e and e["GSHARE_SECURITY_GENERATEMISSINGKEYS"] == "false"
PY
  # Every GSHARE_ variable the chart can set is one docs/configuration.md names, or a relaxed-binding form of a key
  # there: a render that sets all of them.
  render --set controlWorker.separate=true --set secrets.keys.existingSecret=keys --set api.signingKeyRotationInterval=60d \
    --set api.checkpointBuilderImage=registry.example.com/buildah:1 --set temporal.tls.enabled=true \
    --set temporal.tls.existingSecret=gshare-temporal-client --set temporal.tls.serverName=temporal.example.com \
    --set temporal.apiKey.existingSecret=gshare-temporal-client
  run --separate-stderr python3 - "${RENDERED}" "${REPO_ROOT}/docs/configuration.md" <<'PY'
import re, sys, yaml
docs = open(sys.argv[2]).read()
names = set(re.findall(r"`(GSHARE_[A-Z_]+)`", docs))
names |= {k.upper().replace(".", "_").replace("-", "") for k in re.findall(r"`(gshare\.[a-z.-]+)`", docs)}
bad = []
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "Deployment":
        for c in d["spec"]["template"]["spec"]["containers"]:
            bad += [e["name"] for e in c.get("env", []) if e["name"].startswith("GSHARE_") and e["name"] not in names]
print(" ".join(bad))
sys.exit(1 if bad else 0)
PY
  echo "unknown: ${output}"
  [ "${status}" -eq 0 ]
}

@test "a separate control worker runs --mode=worker and turns the api's worker off" {
  render --set controlWorker.separate=true
  check_docs <<'PY'
w = find("Deployment", "gshare-control-worker")
assert w, "no gshare-control-worker"
c = container(w, "control-worker")
assert c["args"] == ["--mode=worker"] and c["image"].endswith("/gshare-api:0.1.0")
assert c["securityContext"]["readOnlyRootFilesystem"] is True
assert env(c).get("GSHARE_WORKER_ENABLED") is None
assert env(container(find("Deployment", "gshare-api"), "api"))["GSHARE_WORKER_ENABLED"] == "false"
# the same key Secret as the api, read-only: no node ties the two together
assert [v["secret"]["secretName"] for v in w["spec"]["template"]["spec"]["volumes"] if v["name"] == "keys"] == ["gshare-keys"]
assert "affinity" not in w["spec"]["template"]["spec"]
PY
  render
  check_docs <<'PY'
assert find("Deployment", "gshare-control-worker") is None
PY
}

@test "keys from an existing Secret: read-only, no generation, no chart Secret; two replicas spread, rolled and kept sticky for sign-in" {
  render --set secrets.keys.existingSecret=gshare-signing-keys --set api.replicas=2 \
    --set controlWorker.separate=true --set controlWorker.replicas=2
  check_docs <<'PY'
api = find("Deployment", "gshare-api")
c = container(api, "api")
assert env(c)["GSHARE_SECURITY_GENERATEMISSINGKEYS"] == "false" and env(c)["GSHARE_SECURITY_KEYSTORE"] == "database"
mount = [m for m in c["volumeMounts"] if m["mountPath"] == "/var/lib/gshare/keys"][0]
assert mount.get("readOnly") is True
vol = [v for v in api["spec"]["template"]["spec"]["volumes"] if v["name"] == mount["name"]][0]
assert vol["secret"]["secretName"] == "gshare-signing-keys"
assert find("Secret", "gshare-keys") is None and find("PersistentVolumeClaim", "gshare-keys") is None
assert api["spec"]["replicas"] == 2 and api["spec"]["strategy"]["type"] == "RollingUpdate"
assert api["spec"]["strategy"]["rollingUpdate"] == {"maxUnavailable": 0, "maxSurge": 1}
for name, component in (("gshare-api", "api"), ("gshare-control-worker", "control-worker")):
    d = find("Deployment", name)
    spread = d["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert [s["topologyKey"] for s in spread] == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"], spread
    assert all(s["labelSelector"]["matchLabels"]["app.kubernetes.io/component"] == component for s in spread)
    assert find("PodDisruptionBudget", name)["spec"]["maxUnavailable"] == 1
assert find("Deployment", "gshare-control-worker")["spec"]["replicas"] == 2
ingress = find("Ingress", "gshare-api")
assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/affinity"] == "cookie"
PY
}

@test "Temporal credentials: the client certificate, the CA and the API key are mounted files named by GSHARE_TEMPORAL_*" {
  render
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
assert not [n for n in e if n.startswith("GSHARE_TEMPORAL_TLS") or n == "GSHARE_TEMPORAL_API_KEY_FILE"], e
PY
  render --set temporal.tls.enabled=true --set temporal.tls.existingSecret=gshare-temporal-client \
    --set temporal.tls.serverName=temporal.example.com --set temporal.apiKey.existingSecret=temporal-key
  check_docs <<'PY'
api = find("Deployment", "gshare-api")
c = container(api, "api")
e = env(c)
assert e["GSHARE_TEMPORAL_TLS_CERT"] == "/etc/gshare/temporal-tls/tls.crt"
assert e["GSHARE_TEMPORAL_TLS_KEY"] == "/etc/gshare/temporal-tls/tls.key"
assert e["GSHARE_TEMPORAL_TLS_CA"] == "/etc/gshare/temporal-tls/ca.crt"
assert e["GSHARE_TEMPORAL_TLS_SERVER_NAME"] == "temporal.example.com"
assert e["GSHARE_TEMPORAL_API_KEY_FILE"] == "/etc/gshare/temporal-api-key/api-key"
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
vols = {v["name"]: v for v in api["spec"]["template"]["spec"]["volumes"]}
tls = vols[mounts["/etc/gshare/temporal-tls"]["name"]]["secret"]
assert tls["secretName"] == "gshare-temporal-client"
assert sorted(i["path"] for i in tls["items"]) == ["ca.crt", "tls.crt", "tls.key"]
key = vols[mounts["/etc/gshare/temporal-api-key"]["name"]]["secret"]
assert key["secretName"] == "temporal-key" and key["items"] == [{"key": "api-key", "path": "api-key"}]
assert all(m.get("readOnly") for p, m in mounts.items() if p.startswith("/etc/gshare/"))
PY
  render --set temporal.tls.enabled=true --set temporal.tls.existingSecret=t --set temporal.tls.caKey=
  check_docs <<'PY'
assert "GSHARE_TEMPORAL_TLS_CA" not in env(container(find("Deployment", "gshare-api"), "api"))
PY
  run --separate-stderr render --set temporal.tls.enabled=true
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"temporal.tls.existingSecret"* ]]
}

# --- ingress and the internal plane ---------------------------------------------------------------------------

@test "the internal plane is closed by default: no gshare-internal, and the public host answers 403 for its paths" {
  render
  check_docs <<'PY'
assert find("Ingress", "gshare-internal") is None, "gshare-internal rendered by default"
public = find("Ingress", "gshare-api")
assert public["spec"]["ingressClassName"] == "nginx"
rule = public["spec"]["rules"][0]
assert rule["host"] == "gshare.example.com"
paths = [(p["path"], p["pathType"], p["backend"]["service"]["name"], p["backend"]["service"]["port"]["name"]) for p in rule["http"]["paths"]]
assert paths == [("/", "Prefix", "gshare-api", "http")], paths
closed = find("Ingress", "gshare-internal-closed")
assert sorted(p["path"] for p in closed["spec"]["rules"][0]["http"]["paths"]) == ["/.well-known", "/internal", "/temporal.api.workflowservice.v1.WorkflowService/"]
assert find("Ingress", "gshare-temporal-gateway") is None
assert closed["spec"]["rules"][0]["host"] == "gshare.example.com"
assert closed["metadata"]["annotations"]["nginx.ingress.kubernetes.io/whitelist-source-range"] == "255.255.255.255/32"
PY
}

@test "the operator guide's helm upgrade opens exactly /internal and /.well-known, from the source range only" {
  # helm upgrade gshare charts/gshare -n gshare-system --reuse-values --set ingress.internalPlane.enabled=true
  #   --set ingress.internalPlane.sourceRange="10.0.0.0/8"  (--reuse-values: the values of the installed release)
  render -f "${VALUES_DIR}/incluster.yaml" --set ingress.internalPlane.enabled=true --set ingress.internalPlane.sourceRange=10.0.0.0/8
  check_docs <<'PY'
ing = find("Ingress", "gshare-internal")
assert ing, "no gshare-internal"
assert ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/whitelist-source-range"] == "10.0.0.0/8"
assert len(ing["spec"]["rules"]) == 1 and ing["spec"]["rules"][0]["host"] == "gshare.example.com"
paths = [(p["path"], p["pathType"], p["backend"]["service"]["name"]) for p in ing["spec"]["rules"][0]["http"]["paths"]]
assert sorted(paths) == [("/.well-known", "Prefix", "gshare-api"), ("/internal", "Prefix", "gshare-api")], paths
assert find("Ingress", "gshare-internal-closed") is None
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_CLUSTERWORKER_CONTROLPLANEURL"] == "https://gshare.example.com", e["GSHARE_CLUSTERWORKER_CONTROLPLANEURL"]
PY
  render --set ingress.internalPlane.enabled=true --set ingress.internalPlane.host=internal.example.com
  check_docs <<'PY'
ing = find("Ingress", "gshare-internal")
assert ing["spec"]["rules"][0]["host"] == "internal.example.com"
assert "nginx.ingress.kubernetes.io/whitelist-source-range" not in ing["metadata"]["annotations"]
# the public host still must not route the internal paths
assert find("Ingress", "gshare-internal-closed")["spec"]["rules"][0]["host"] == "gshare.example.com"
PY
}

# --- the Temporal gateway --------------------------------------------------------------------------------------

@test "the Temporal gateway on the open internal plane: a gRPC Ingress, and workers get <host>:443 with TLS" {
  render --set ingress.internalPlane.enabled=true --set ingress.internalPlane.sourceRange=10.0.0.0/8 \
    --set ingress.internalPlane.annotations.example\\.com/team=gpu
  check_docs <<'PY'
ing = find("Ingress", "gshare-temporal-gateway")
assert ing, "no gshare-temporal-gateway"
ann = ing["metadata"]["annotations"]
assert ann["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC", ann
assert ann["nginx.ingress.kubernetes.io/whitelist-source-range"] == "10.0.0.0/8", ann
assert int(ann["nginx.ingress.kubernetes.io/proxy-read-timeout"]) > 70, "Temporal's long polls last up to ~70 s"
assert int(ann["nginx.ingress.kubernetes.io/proxy-send-timeout"]) > 70
assert ann["example.com/team"] == "gpu", "ingress.internalPlane.annotations"
rule = ing["spec"]["rules"][0]
assert len(ing["spec"]["rules"]) == 1 and rule["host"] == "gshare.example.com"
paths = [(p["path"], p["pathType"], p["backend"]["service"]["name"], p["backend"]["service"]["port"]["name"]) for p in rule["http"]["paths"]]
assert paths == [("/temporal.api.workflowservice.v1.WorkflowService/", "Prefix", "gshare-api", "temporal-gw")], paths
svc = {p["name"]: p for p in find("Service", "gshare-api")["spec"]["ports"]}
assert svc["temporal-gw"]["appProtocol"] == "kubernetes.io/h2c" and svc["temporal-gw"]["targetPort"] == "temporal-gw"
api = container(find("Deployment", "gshare-api"), "api")
assert {"name": "temporal-gw", "containerPort": 7243, "protocol": "TCP"} in api["ports"], api["ports"]
e = env(api)
want = {
    "GSHARE_TEMPORALGATEWAY_ENABLED": "true", "GSHARE_TEMPORALGATEWAY_PORT": "7243",
    "GSHARE_CLUSTERWORKER_TEMPORALADDRESS": "gshare.example.com:443",
    "GSHARE_CLUSTERWORKER_TEMPORALGATEWAY": "true", "GSHARE_CLUSTERWORKER_TEMPORALTLS": "true",
}
for name, value in want.items():
    assert e.get(name) == value, f"{name}={e.get(name)!r}, want {value!r}"
assert find("GRPCRoute", "gshare-temporal-gateway") is None
PY
  # Another internal-plane host: the gateway follows it, with TLS on the Ingress only where gshare-internal has it.
  render --set ingress.internalPlane.enabled=true --set ingress.internalPlane.host=internal.example.com \
    --set temporalGateway.port=7300 --set ingress.tls.enabled=true --set ingress.tls.secretName=gshare-tls
  check_docs <<'PY'
ing = find("Ingress", "gshare-temporal-gateway")
assert ing["spec"]["rules"][0]["host"] == "internal.example.com"
assert ing["spec"].get("tls") is None and find("Ingress", "gshare-internal")["spec"].get("tls") is None
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "internal.example.com:443" and e["GSHARE_TEMPORALGATEWAY_PORT"] == "7300"
assert [p["port"] for p in find("Service", "gshare-api")["spec"]["ports"]] == [8080, 7300]
PY
  render --set ingress.internalPlane.enabled=true --set ingress.tls.enabled=true --set ingress.tls.secretName=gshare-tls
  check_docs <<'PY'
assert find("Ingress", "gshare-temporal-gateway")["spec"]["tls"] == [{"hosts": ["gshare.example.com"], "secretName": "gshare-tls"}]
PY
}

@test "the Temporal gateway with the internal plane closed: workers of this cluster get the Service, without TLS" {
  render
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "gshare-api.gshare-system.svc.cluster.local:7243", e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"]
assert e["GSHARE_CLUSTERWORKER_TEMPORALGATEWAY"] == "true" and e["GSHARE_CLUSTERWORKER_TEMPORALTLS"] == "false"
assert e["GSHARE_TEMPORALGATEWAY_ENABLED"] == "true"
assert find("Ingress", "gshare-temporal-gateway") is None
PY
  # operator.temporalAddress wins and is not TLS unless operator.temporalTls says so (e.g. behind a GRPCRoute).
  render --set ingress.internalPlane.enabled=true --set operator.temporalAddress=temporal-gw.example.com:443
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "temporal-gw.example.com:443" and e["GSHARE_CLUSTERWORKER_TEMPORALTLS"] == "false"
PY
  render --set operator.temporalAddress=temporal-gw.example.com:443 --set operator.temporalTls=true
  check_docs <<'PY'
assert env(container(find("Deployment", "gshare-api"), "api"))["GSHARE_CLUSTERWORKER_TEMPORALTLS"] == "true"
PY
  render --set ingress.internalPlane.enabled=true --set ingress.scheme=http
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "gshare.example.com:80" and e["GSHARE_CLUSTERWORKER_TEMPORALTLS"] == "false"
PY
}

@test "temporalGateway.enabled=false: no gateway port, Ingress or env; workers dial Temporal as before" {
  render --set temporalGateway.enabled=false --set ingress.internalPlane.enabled=true
  check_docs <<'PY'
assert find("Ingress", "gshare-temporal-gateway") is None
api = container(find("Deployment", "gshare-api"), "api")
assert [p["name"] for p in api["ports"]] == ["http", "management"], api["ports"]
assert [p["name"] for p in find("Service", "gshare-api")["spec"]["ports"]] == ["http"]
e = env(api)
assert "GSHARE_TEMPORALGATEWAY_ENABLED" not in e and "GSHARE_TEMPORALGATEWAY_PORT" not in e
assert e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "temporal-frontend.temporal.svc:7233", e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"]
assert e["GSHARE_CLUSTERWORKER_TEMPORALGATEWAY"] == "false" and e["GSHARE_CLUSTERWORKER_TEMPORALTLS"] == "false"
PY
  render --set temporalGateway.enabled=false --set operator.temporalAddress=temporal.example.com:7233
  check_docs <<'PY'
assert env(container(find("Deployment", "gshare-api"), "api"))["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "temporal.example.com:7233"
PY
}

@test "temporalGateway.grpcRoute renders a GRPCRoute to the gateway's Service port, and needs parentRefs" {
  render --set temporalGateway.grpcRoute.enabled=true --set ingress.internalPlane.host=internal.example.com \
    --set 'temporalGateway.grpcRoute.parentRefs[0].name=gshare' \
    --set 'temporalGateway.grpcRoute.parentRefs[0].namespace=envoy-gateway-system' \
    --set 'temporalGateway.grpcRoute.parentRefs[0].sectionName=internal-https'
  check_docs <<'PY'
r = find("GRPCRoute", "gshare-temporal-gateway")
assert r and r["apiVersion"] == "gateway.networking.k8s.io/v1", r
assert r["metadata"]["namespace"] == "gshare-system"
assert r["spec"]["parentRefs"] == [{"name": "gshare", "namespace": "envoy-gateway-system", "sectionName": "internal-https"}], r["spec"]["parentRefs"]
assert r["spec"]["hostnames"] == ["internal.example.com"]
rule, = r["spec"]["rules"]
assert rule["matches"] == [{"method": {"type": "Exact", "service": "temporal.api.workflowservice.v1.WorkflowService"}}], rule["matches"]
assert rule["backendRefs"] == [{"name": "gshare-api", "port": 7243}]
PY
  run --separate-stderr render --set temporalGateway.grpcRoute.enabled=true
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"temporalGateway.grpcRoute.parentRefs"* ]]
  # No gateway, no route.
  render --set temporalGateway.enabled=false --set temporalGateway.grpcRoute.enabled=true
  check_docs <<'PY'
assert find("GRPCRoute", "gshare-temporal-gateway") is None
PY
}

@test "the separate control worker does not serve the Temporal gateway, but hands the workers its address" {
  render --set controlWorker.separate=true --set ingress.internalPlane.enabled=true
  check_docs <<'PY'
w = container(find("Deployment", "gshare-control-worker"), "control-worker")
e = env(w)
assert "GSHARE_TEMPORALGATEWAY_ENABLED" not in e and "GSHARE_TEMPORALGATEWAY_PORT" not in e, e
assert "ports" not in w
assert e["GSHARE_CLUSTERWORKER_TEMPORALADDRESS"] == "gshare.example.com:443" and e["GSHARE_CLUSTERWORKER_TEMPORALGATEWAY"] == "true"
assert env(container(find("Deployment", "gshare-api"), "api"))["GSHARE_TEMPORALGATEWAY_ENABLED"] == "true"
PY
}

@test "the schema refuses unknown keys and wrong values under temporalGateway and operator.temporalTls" {
  run --separate-stderr render --set temporalGateway.enable=true
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"enable"* ]]
  run --separate-stderr render --set temporalGateway.grpcRoute.parentRef=x
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"parentRef"* ]]
  run --separate-stderr render --set temporalGateway.port=0
  [ "${status}" -ne 0 ]
  run --separate-stderr render --set-string operator.temporalTls=yes
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"operator.temporalTls"* ]]
}

@test "the seed's idle sources: operator.hamiMonitorUrl by default, operator.prometheusUrl when set, for every cluster" {
  render
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_IDLE_HAMIMONITORURL"] == "http://hami-device-plugin-monitor.kube-system.svc:31992", e
assert e["GSHARE_IDLE_PROMETHEUSURL"] == "", e
PY
  render --set operator.prometheusUrl=http://prometheus.monitoring.svc:9090 --set operator.hamiMonitorUrl=
  check_docs <<'PY'
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_IDLE_PROMETHEUSURL"] == "http://prometheus.monitoring.svc:9090" and e["GSHARE_IDLE_HAMIMONITORURL"] == "", e
PY
  run --separate-stderr render --set operator.prometheusUrl=prometheus.monitoring.svc:9090
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"operator.prometheusUrl"* ]]
}

@test "the seed's operator.volumeStorageClass=gshare-data is accepted and names the claims' default StorageClass" {
  render --set operator.volumeStorageClass=gshare-data
  check_docs <<'PY'
assert env(container(find("Deployment", "gshare-api"), "api"))["GSHARE_VOLUMES_DEFAULTSTORAGECLASS"] == "gshare-data"
PY
  run --separate-stderr render --set operator.volumeStorageClass=Gshare_Data
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"operator.volumeStorageClass"* ]]
}

# --- the schema ------------------------------------------------------------------------------------------------

@test "the schema refuses misspelt keys at the top and nested" {
  run --separate-stderr render --set ingres.host=x
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"ingres"* ]]
  run --separate-stderr render --set ingress.hots=x
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"hots"* ]]
  run --separate-stderr render --set ingress.internalPlane.sourcerange=10.0.0.0/8
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"sourcerange"* ]]
}

@test "the schema refuses wrong types and values" {
  run --separate-stderr render --set-string api.replicas=two
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"api.replicas"* ]]
  run --separate-stderr render --set-string ingress.internalPlane.enabled=yes
  [ "${status}" -ne 0 ]
  run --separate-stderr render --set database.mode=sqlite
  [ "${status}" -ne 0 ]
  run --separate-stderr render --set operator.controlPlaneUrl=gshare.example.com
  [ "${status}" -ne 0 ]
}

@test "the schema closes every object it defines (additionalProperties: false) and types every value" {
  run --separate-stderr python3 - "${CHART}/values.schema.json" "${CHART}/values.yaml" <<'PY'
import json, sys, yaml
schema = json.load(open(sys.argv[1]))
assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
problems = []
def walk(node, path):
    if node.get("type") == "object" and "properties" in node:
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties is not false")
        for k, sub in node["properties"].items():
            walk(sub, f"{path}.{k}" if path else k)
    elif "type" not in node:
        problems.append(f"{path}: no type")
    elif node.get("type") == "array" and "items" in node:
        walk(node["items"], path + "[]")
walk(schema, "")
def cover(values, node, path):
    for k, v in values.items():
        sub = node.get("properties", {}).get(k)
        if sub is None:
            problems.append(f"{path}{k}: in values.yaml, not in the schema")
        elif isinstance(v, dict) and v and "properties" in sub:
            cover(v, sub, f"{path}{k}.")
cover(yaml.safe_load(open(sys.argv[2])), schema, "")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
  echo "${output}"
  [ "${status}" -eq 0 ]
}

# --- the database ---------------------------------------------------------------------------------------------

@test "the generated database password is looked up, so upgrades keep it; a render makes 32 characters" {
  grep -q 'lookup "v1" "Secret" .Release.Namespace "gshare-db-credentials"' "${CHART}/templates/database-secret.yaml"
  local first second
  render
  first="$(check_docs <<'PY'
import base64
s = find("Secret", "gshare-db-credentials")
assert s["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
assert s["type"] == "kubernetes.io/basic-auth"
assert base64.b64decode(s["data"]["username"]) == b"gshare"
print(base64.b64decode(s["data"]["password"]).decode())
PY
)"
  render
  second="$(check_docs <<'PY'
import base64
print(base64.b64decode(find("Secret", "gshare-db-credentials")["data"]["password"]).decode())
PY
)"
  [[ "${first}" =~ ^[A-Za-z0-9]{32}$ ]]
  [[ "${second}" =~ ^[A-Za-z0-9]{32}$ ]]
}

@test "in-cluster PostgreSQL: a StatefulSet, or a CloudNativePG Cluster behind gshare-db-rw" {
  render
  check_docs <<'PY'
sts = find("StatefulSet", "gshare-db")
c = sts["spec"]["template"]["spec"]["containers"][0]
assert {e["name"] for e in c["env"]} >= {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB", "PGDATA"}
assert sts["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
assert find("Service", "gshare-db")
assert container(find("Deployment", "gshare-api"), "api")
assert find("Deployment", "gshare-api")["spec"]["template"]["spec"]["initContainers"][0]["name"] == "wait-for-database"
PY
  render --set database.incluster.cloudnativepg=true
  check_docs <<'PY'
assert find("StatefulSet", "gshare-db") is None
cl = find("Cluster", "gshare-db")
assert cl["apiVersion"] == "postgresql.cnpg.io/v1"
assert cl["spec"]["bootstrap"]["initdb"]["secret"]["name"] == "gshare-db-credentials"
e = env(container(find("Deployment", "gshare-api"), "api"))
assert e["GSHARE_DB_URL"] == "jdbc:postgresql://gshare-db-rw.gshare-system.svc:5432/gshare", e["GSHARE_DB_URL"]
PY
}

@test "external database: needs a Secret; dockerhub.yaml uses CloudNativePG in gshare-data and ExternalSecrets" {
  run --separate-stderr render --set database.mode=external --set database.external.host=db.example.com
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"database.existingSecret"* ]]
  render -f "${VALUES_DIR}/dockerhub.yaml"
  check_docs <<'PY'
assert find("StatefulSet", "gshare-db") is None and find("Secret", "gshare-db-credentials") is None
api = find("Deployment", "gshare-api")
e = env(container(api, "api"))
assert e["GSHARE_DB_URL"].startswith("jdbc:postgresql://gshare-db-rw.gshare-data.svc:5432/gshare"), e["GSHARE_DB_URL"]
assert e["GSHARE_DB_PASSWORD"]["secretKeyRef"]["name"] == "gshare-db-credentials"
assert e["GSHARE_SECURITY_GENERATEMISSINGKEYS"] == "false"
assert "initContainers" not in api["spec"]["template"]["spec"]
db = find("ExternalSecret", "gshare-db-credentials")
keys = find("ExternalSecret", "gshare-signing-keys")
assert db and keys, "ExternalSecrets missing"
assert db["spec"]["secretStoreRef"]["name"] == keys["spec"]["secretStoreRef"]["name"] != ""
assert sorted(x["secretKey"] for x in db["spec"]["data"]) == ["password", "username"]
# the data key and the Temporal gateway's task-token seal: a read-only key directory gets nothing generated; the
# signing key sets live in PostgreSQL, sealed with the data key
assert sorted(x["secretKey"] for x in keys["spec"]["data"]) == ["kubeconfig.key", "temporal-gateway-task-token.key"]
assert find("Job", "gshare-register-local-cluster") is None
assert not [d for d in docs if "redis" in str(d).lower()], "Redis is not deployed"
PY
}

# --- registration of the local cluster ------------------------------------------------------------------------

@test "incluster.yaml registers the local cluster with a post-install/post-upgrade Job; the defaults do not" {
  render
  check_docs <<'PY'
assert find("Job", "gshare-register-local-cluster") is None
PY
  render -f "${VALUES_DIR}/incluster.yaml"
  check_docs <<'PY'
job = find("Job", "gshare-register-local-cluster")
assert job, "no registration Job"
ann = job["metadata"]["annotations"]
assert ann["helm.sh/hook"] == "post-install,post-upgrade"
pod = job["spec"]["template"]["spec"]
assert pod["serviceAccountName"] == "gshare-register"
e = env(pod["containers"][0])
assert e["CLUSTER_NAME"] == "local" and e["SESSION_DOMAIN"] == "gshare.example.com"
assert e["API_URL"] == "http://gshare-api.gshare-system.svc.cluster.local:8080"
assert e["KUBE_SERVER"] == "https://kubernetes.default.svc"
assert pod["containers"][0]["securityContext"]["readOnlyRootFilesystem"] is True
tok = find("Secret", "gshare-register-token")
assert tok["type"] == "kubernetes.io/service-account-token"
assert tok["metadata"]["annotations"]["kubernetes.io/service-account.name"] == "gshare-register"
crb = find("ClusterRoleBinding", "gshare-register")
assert crb["roleRef"]["name"] == "cluster-admin"
assert crb["subjects"] == [{"kind": "ServiceAccount", "name": "gshare-register", "namespace": "gshare-system"}]
cm = find("ConfigMap", "gshare-register-local-cluster")
import os
assert cm["data"]["register-local-cluster.sh"] == open(os.environ["CHART"] + "/files/register-local-cluster.sh").read()
PY
  run --separate-stderr render --set localCluster.register=true
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"localCluster.sessionDomain"* ]]
}

@test "the registration script is clean under shellcheck (POSIX sh)" {
  command -v shellcheck >/dev/null || {
    echo "shellcheck is missing (apt-get install -y shellcheck)" >&2
    return 1
  }
  run shellcheck --shell=sh "${CHART}/files/register-local-cluster.sh"
  echo "${output}"
  [ "${status}" -eq 0 ]
}

@test "the registration script POSTs the cluster with a kubeconfig of the long-lived token; 202 is success" {
  register_env
  echo 202 >"${STATE}/status"
  run_register
  echo "${stderr}"
  [ "${status}" -eq 0 ]
  grep -q -- "rollout status deploy/gshare-api" "${LOG}"
  grep -q -- "bootstrap-superadmin --email root@example.com" "${LOG}"
  grep -q -- "curl .*-X POST .*http://gshare-api.gshare-system.svc.cluster.local:8080/api/v1/clusters" "${LOG}"
  grep -qx 'Authorization: Bearer admin-token-456' "${STATE}/header"
  python3 - "${STATE}/body.json" <<'PY'
import json, sys, yaml, base64
body = json.load(open(sys.argv[1]))
assert body["name"] == "local" and body["session_domain"] == "gshare.example.com" and body["ingress_node"] == "master-1"
kc = yaml.safe_load(body["kubeconfig"])
assert kc["current-context"] == "local"
assert kc["clusters"][0]["cluster"]["server"] == "https://kubernetes.default.svc"
assert base64.b64decode(kc["clusters"][0]["cluster"]["certificate-authority-data"]) == b"CA PEM"
assert kc["users"][0]["user"]["token"] == "sa-token-123"
PY
  # No token reaches the logs or the command lines.
  [[ "${stderr}" != *"admin-token-456"* && "${stderr}" != *"sa-token-123"* ]]
  run ! grep -q -- "admin-token-456" "${LOG}"
  [ ! -e "${BATS_TEST_TMPDIR}/work/auth-header" ]
}

@test "the registration script treats 409 (already registered) as success and any other answer as failure" {
  register_env
  echo 409 >"${STATE}/status"
  run_register
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"already registered"* ]]
  echo 422 >"${STATE}/status"
  run_register
  [ "${status}" -ne 0 ]
  [[ "${stderr}" == *"answered 422"* ]]
}

# --- helm test, NOTES and the README --------------------------------------------------------------------------

@test "the helm test pod checks /healthz and the api's real JWKS path" {
  local jwks
  jwks="$(sed -n 's/.*INTERNAL_JWKS = "\([^"]*\)".*/\1/p' "${REPO_ROOT}/api/src/main/java/io/gshare/api/security/OpenPaths.java")"
  [ "${jwks}" = "/.well-known/gshare-internal-jwks.json" ]
  render
  check_docs <<'PY'
pod = find("Pod", "gshare-test-api")
assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
script = " ".join(pod["spec"]["containers"][0]["command"])
assert "/healthz" in script and "/.well-known/gshare-internal-jwks.json" in script
assert pod["spec"]["containers"][0]["securityContext"]["runAsNonRoot"] is True
PY
}

@test "NOTES print the URLs, the first super admin and the operator guide's command to open the internal plane" {
  # helm renders NOTES.txt only at install; a copy of the chart shows it through a template that includes it.
  local copy="${BATS_TEST_TMPDIR}/chart"
  cp -r "${CHART}" "${copy}"
  printf '%s\n' 'apiVersion: v1' 'kind: ConfigMap' 'metadata:' '  name: notes' 'data:' \
    '  notes: {{ include "gshare/templates/NOTES.txt" . | quote }}' >"${copy}/templates/zz-notes.yaml"
  "${HELM}" template gshare "${copy}" --namespace gshare-system --show-only templates/zz-notes.yaml >"${RENDERED}"
  local notes
  notes="$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["data"]["notes"])' "${RENDERED}")"
  echo "${notes}"
  [[ "${notes}" == *"https://gshare.example.com/"* ]]
  [[ "${notes}" == *"./hack/bootstrap-superadmin.sh --cluster"* ]]
  [[ "${notes}" == *"helm upgrade gshare charts/gshare -n gshare-system --reuse-values"* ]]
  [[ "${notes}" == *"--set ingress.internalPlane.enabled=true"* ]]
  [[ "${notes}" == *"--set ingress.internalPlane.sourceRange="* ]]
  [[ "${notes}" == *"Cluster-workers reach Temporal at: gshare-api.gshare-system.svc.cluster.local:7243 (plain HTTP/2): the api's Temporal gateway"* ]]
}

@test "the chart README's values table lists every key of values.yaml, and only those" {
  local key missing=()
  while IFS= read -r key; do
    grep -qF -- "| \`${key}\` |" "${CHART}/README.md" || missing+=("${key}")
  done < <(values_keys)
  echo "missing from the README: ${missing[*]}"
  [ "${#missing[@]}" -eq 0 ]
  local stale=() table
  # shellcheck disable=SC2016 # backquotes of Markdown, not a command substitution
  table='s/^| `\([A-Za-z0-9.]*\)` |.*/\1/p'
  while IFS= read -r key; do
    values_keys | grep -qxF -- "${key}" || stale+=("${key}")
  done < <(sed -n "${table}" "${CHART}/README.md")
  echo "in the README, not in values.yaml: ${stale[*]}"
  [ "${#stale[@]}" -eq 0 ]
}
