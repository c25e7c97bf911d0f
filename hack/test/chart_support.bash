# chart_support.bash - setup and helpers for hack/test/chart.bats: helm from .tools/bin (hack/tools.sh), renders of
# charts/gshare into the test's directory, and Python (PyYAML) checks over the rendered documents.
# shellcheck shell=bash
# shellcheck disable=SC2034 # CHART, VALUES_DIR and HELM are used by the .bats file
# shellcheck disable=SC2154 # status and stderr are set by bats' run

REPO_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
CHART="${REPO_ROOT}/charts/gshare"
VALUES_DIR="${REPO_ROOT}/deploy/values"
HELM="${REPO_ROOT}/.tools/bin/helm"

chart_setup() {
  bats_require_minimum_version 1.5.0
  if [[ ! -x ${HELM} ]]; then
    echo "helm is missing at ${HELM}: run hack/tools.sh (it installs kubectl and helm into .tools/bin)" >&2
    return 1
  fi
  if ! python3 -c 'import yaml' 2>/dev/null; then
    echo "python3 with PyYAML is needed to read the rendered manifests (apt-get install -y python3-yaml)" >&2
    return 1
  fi
  export CHART
  export HOME="${BATS_TEST_TMPDIR}/home"
  export HELM_CACHE_HOME="${BATS_TEST_TMPDIR}/helm/cache" HELM_CONFIG_HOME="${BATS_TEST_TMPDIR}/helm/config"
  export HELM_DATA_HOME="${BATS_TEST_TMPDIR}/helm/data"
  mkdir -p "${HOME}"
  RENDERED="${BATS_TEST_TMPDIR}/rendered.yaml"
}

# render [helm template args...]: the chart as release gshare in gshare-system, into ${RENDERED}; fails like helm.
render() {
  "${HELM}" template gshare "${CHART}" --namespace gshare-system "$@" >"${RENDERED}"
}

# check_docs [FILE] <<'PY' ... PY: runs the Python on stdin with `docs` (every rendered document, None dropped),
# `find(kind, name)` (the document or None) and `fail(msg)`; an AssertionError or fail() fails the test.
check_docs() {
  local file="${1:-${RENDERED}}" code
  code="$(cat)"
  python3 - "${file}" "${code}" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]

def find(kind, name):
    hits = [d for d in docs if d.get("kind") == kind and d.get("metadata", {}).get("name") == name]
    assert len(hits) <= 1, f"{len(hits)} {kind}/{name}"
    return hits[0] if hits else None

def fail(msg):
    raise AssertionError(msg)

def container(doc, name):
    for c in doc["spec"]["template"]["spec"]["containers"]:
        if c["name"] == name:
            return c
    fail(f"no container {name}")

def env(c):
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in c.get("env", [])}

try:
    exec(sys.argv[2])
except AssertionError as e:
    print(f"check failed: {e}", file=sys.stderr)
    sys.exit(1)
PY
}

# values_keys: every leaf key of values.yaml (an empty map or list is a leaf), one a line.
values_keys() {
  python3 - "${CHART}/values.yaml" <<'PY'
import sys, yaml
def walk(d, prefix=""):
    for k, v in d.items():
        path = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v:
            yield from walk(v, path)
        else:
            yield path
print("\n".join(walk(yaml.safe_load(open(sys.argv[1])))))
PY
}

# Stub kubectl and curl for the registration script, logging to ${LOG}; state in ${STATE}.
make_register_stubs() {
  local bin="$1"
  mkdir -p "${bin}"
  cat >"${bin}/kubectl" <<'STUB'
#!/usr/bin/env bash
printf 'kubectl %s\n' "$*" >>"${LOG}"
case "$*" in
  *"rollout status"*) echo 'deployment "gshare-api" successfully rolled out' ;;
  *"get secret gshare-register-token"*"{.data.token}"*) printf '%s' "$(printf 'sa-token-123' | base64)" ;;
  *"get secret gshare-register-token"*"ca\.crt"*) printf '%s' "$(printf 'CA PEM' | base64)" ;;
  *"exec deploy/gshare-api -c api -- java -cp @/app/jib-classpath-file @/app/jib-main-class-file bootstrap-superadmin --email root@example.com")
    printf 'admin-token-456\n' ;;
  *) echo "unexpected kubectl $*" >&2; exit 1 ;;
esac
STUB
  cat >"${bin}/curl" <<'STUB'
#!/usr/bin/env bash
printf 'curl %s\n' "$*" >>"${LOG}"
out=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    --data-binary) cp "${2#@}" "${STATE}/body.json"; shift ;;
    -H) case "$2" in @*) cp "${2#@}" "${STATE}/header" ;; esac; shift ;;
  esac
  shift
done
case "${out}" in
  /dev/null) exit 0 ;; # GET /healthz
  *) printf '{"detail":"stub answer"}' >"${out}"; cat "${STATE}/status" ;;
esac
STUB
  chmod +x "${bin}/kubectl" "${bin}/curl"
}

# register_env: the stubs' log and state directory, and the script's work directory.
register_env() {
  export LOG="${BATS_TEST_TMPDIR}/calls.log" STATE="${BATS_TEST_TMPDIR}/state"
  mkdir -p "${STATE}" "${BATS_TEST_TMPDIR}/work"
}

# run_register: the chart's registration script with the stubs first on PATH and the Job's environment.
run_register() {
  local bin="${BATS_TEST_TMPDIR}/bin"
  make_register_stubs "${bin}"
  run --separate-stderr env -i PATH="${bin}:/usr/bin:/bin" LOG="${LOG}" STATE="${STATE}" \
    NAMESPACE=gshare-system API_URL=http://gshare-api.gshare-system.svc.cluster.local:8080 API_DEPLOYMENT=gshare-api \
    API_CLI='java -cp @/app/jib-classpath-file @/app/jib-main-class-file' CLUSTER_NAME=local \
    SESSION_DOMAIN=gshare.example.com INGRESS_NODE=master-1 ADMIN_EMAIL=root@example.com \
    TOKEN_SECRET=gshare-register-token KUBE_SERVER=https://kubernetes.default.svc WAIT_TRIES=2 WAIT_INTERVAL=0 \
    WORK_DIR="${BATS_TEST_TMPDIR}/work" sh "${CHART}/files/register-local-cluster.sh"
}
