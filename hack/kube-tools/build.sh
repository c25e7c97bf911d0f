#!/usr/bin/env bash
# Builds the real Kubernetes that gShare's dev runtime and tests run (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, etcd, kwok) from the wrapper modules beside this script, whose go.mod and go.sum pin
# every transitive version, and installs them into TOOLS_DIR/bin, with KWOK's stages and its Stage CRD (which its
# binary does not ship) in TOOLS_DIR/kube/. Builds are cached per content of the wrapper modules and the Go
# version, so a second clone on the same machine copies them in seconds. A build is made in a temporary directory
# and moved into the cache whole: an interrupted build never leaves a half cache.
#
# Usage: hack/kube-tools/build.sh [--check] TOOLS_DIR
#   --check   only report whether TOOLS_DIR holds this exact build; exit 1 when not
#
# Environment:
#   KUBE_TOOLS_CACHE  where builds are kept (default: ${XDG_CACHE_HOME:-~/.cache}/gshare/kube-tools)
set -o errexit -o nounset -o pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
KUBE_TOOLS_CACHE="${KUBE_TOOLS_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/gshare/kube-tools}"
# The one place the versions are named; the wrapper modules' go.mod require the same ones.
KUBERNETES_VERSION="v1.37.2"
ETCD_VERSION="v3.7.3"
KWOK_VERSION="v0.8.0"
# Bump when the way binaries are built changes (flags, stages), so that cached builds are made again.
RECIPE=1
TOOLS=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok)
# KWOK's stages from its module: nodes turn Ready at once and keep a lease; pods run at once, complete, delete.
KWOK_STAGES=(
  kustomize/stage/node/fast/node-initialize.yaml
  kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml
  kustomize/stage/pod/fast/pod-ready.yaml
  kustomize/stage/pod/fast/pod-complete.yaml
  kustomize/stage/pod/fast/pod-delete.yaml
)
# Its stages are given to KWOK as objects of this CRD: the order they are applied in orders its controllers.
KWOK_STAGE_CRD=kustomize/crd/bases/kwok.x-k8s.io_stages.yaml
KWOK_FILES=(kwok-stages.yaml kwok-stage-crd.yaml)

info() { printf 'kube-tools: %s\n' "$*" >&2; }
fatal() { printf 'kube-tools: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; }

# build_key: what a cached build depends on. Another go.mod/go.sum, Go or recipe makes another build.
build_key() {
  { go env GOVERSION GOOS GOARCH; echo "${KUBERNETES_VERSION} ${ETCD_VERSION} ${KWOK_VERSION} ${RECIPE}"
    cat "${HERE}"/*/go.mod "${HERE}"/*/go.sum; } | sha256sum | cut -c1-16
}

version_ldflags() {
  local minor flags="" pkg
  minor="$(echo "${KUBERNETES_VERSION}" | cut -d. -f2)"
  # Without these the server says v0.0.0-master, and Helm's kubeVersion checks fail.
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${pkg}.gitVersion=${KUBERNETES_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
    flags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  echo "-s -w${flags}"
}

# build_one MODULE_DIR PACKAGE OUT
build_one() {
  local module="$1" package="$2" out="$3" start
  start="$(date +%s)"
  info "building $(basename "${out}") (${package})"
  (cd "${HERE}/${module}" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -ldflags "$(version_ldflags)" -o "${out}" "${package}") \
    || fatal "go build ${package} failed"
  info "built $(basename "${out}") in $(( $(date +%s) - start )) s, $(( $(stat -c %s "${out}") / 1048576 )) MB"
}

# kwok_files_into DIR: KWOK's stages and Stage CRD from its module (the Go module cache), into DIR. Cheap: an
# existing build that lacks them gets them without being built again.
kwok_files_into() {
  local into="$1" dir stage
  dir="$(cd "${HERE}/kwok" && GOFLAGS=-mod=readonly go mod download -json sigs.k8s.io/kwok | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "${dir}" ] || fatal "go mod download sigs.k8s.io/kwok gave no directory"
  : > "${into}/kwok-stages.yaml"
  for stage in "${KWOK_STAGES[@]}"; do
    [ -f "${dir}/${stage}" ] || fatal "KWOK ${KWOK_VERSION} has no ${stage}"
    { echo "---"; cat "${dir}/${stage}"; } >> "${into}/kwok-stages.yaml"
  done
  [ -f "${dir}/${KWOK_STAGE_CRD}" ] || fatal "KWOK ${KWOK_VERSION} has no ${KWOK_STAGE_CRD}"
  cp "${dir}/${KWOK_STAGE_CRD}" "${into}/kwok-stage-crd.yaml"
}

build_into() {
  local dir="$1" start
  start="$(date +%s)"
  build_one etcd go.etcd.io/etcd/server/v3 "${dir}/etcd"
  build_one kubernetes k8s.io/kubernetes/cmd/kubectl "${dir}/kubectl"
  build_one kubernetes k8s.io/kubernetes/cmd/kube-apiserver "${dir}/kube-apiserver"
  build_one kubernetes k8s.io/kubernetes/cmd/kube-controller-manager "${dir}/kube-controller-manager"
  build_one kubernetes k8s.io/kubernetes/cmd/kube-scheduler "${dir}/kube-scheduler"
  build_one kwok sigs.k8s.io/kwok/cmd/kwok "${dir}/kwok"
  kwok_files_into "${dir}"
  info "the whole build took $(( $(date +%s) - start )) s"
}

# installed_in BIN_DIR KEY_FILE
installed_in() {
  local bin="$1" key_file="$2" tool
  [ -f "${key_file}" ] && [ "$(cat "${key_file}")" = "$(build_key)" ] || return 1
  for tool in "${TOOLS[@]}"; do [ -x "${bin}/${tool}" ] || return 1; done
}

# has_kwok_files DIR
has_kwok_files() {
  local file
  for file in "${KWOK_FILES[@]}"; do [ -f "$1/${file}" ] || return 1; done
}

main() {
  local check=false
  if [ "${1:-}" = "--check" ]; then check=true; shift; fi
  case "${1:-}" in -h|--help) usage; exit 0 ;; "") usage; exit 2 ;; esac
  local tools_dir="$1" key cached tool file
  command -v go >/dev/null 2>&1 || fatal "Go is required to build Kubernetes ${KUBERNETES_VERSION} (go build)"
  if installed_in "${tools_dir}/bin" "${tools_dir}/kube/key" && has_kwok_files "${tools_dir}/kube"; then
    ${check} || info "Kubernetes ${KUBERNETES_VERSION}, etcd ${ETCD_VERSION} and kwok ${KWOK_VERSION} already in ${tools_dir}/bin"
    return 0
  fi
  ${check} && return 1
  key="$(build_key)"
  cached="${KUBE_TOOLS_CACHE}/${key}"
  if ! installed_in "${cached}" "${cached}/key"; then
    info "building Kubernetes ${KUBERNETES_VERSION}, etcd ${ETCD_VERSION} and kwok ${KWOK_VERSION} once for this machine (about 20 minutes on 2 cores)"
    mkdir -p "${KUBE_TOOLS_CACHE}"
    local work
    work="$(mktemp -d "${KUBE_TOOLS_CACHE}/.build-XXXXXX")"
    # shellcheck disable=SC2064 # expand now: the trap must remove this very directory
    trap "rm -rf '${work}'" EXIT
    build_into "${work}"
    echo "${key}" > "${work}/key"
    rm -rf "${cached}"
    mv "${work}" "${cached}"
    trap - EXIT
  elif ! has_kwok_files "${cached}"; then
    info "adding KWOK's files to the build in ${cached}"
    kwok_files_into "${cached}"
  fi
  mkdir -p "${tools_dir}/bin" "${tools_dir}/kube"
  for tool in "${TOOLS[@]}"; do install -m 0755 "${cached}/${tool}" "${tools_dir}/bin/${tool}"; done
  for file in "${KWOK_FILES[@]}"; do install -m 0644 "${cached}/${file}" "${tools_dir}/kube/${file}"; done
  install -m 0644 "${cached}/key" "${tools_dir}/kube/key"
  info "installed $("${tools_dir}/bin/kube-apiserver" --version), etcd ${ETCD_VERSION} and kwok ${KWOK_VERSION} into ${tools_dir}/bin"
}

main "$@"
