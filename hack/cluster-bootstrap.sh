#!/usr/bin/env bash
# cluster-bootstrap.sh - build the GPU Kubernetes cluster that gShare is deployed on:
# kubeadm 1.36 (one control plane, N GPU workers, M CPU workers), containerd with SystemdCgroup and the
# NVIDIA runtime (RuntimeClass nvidia), flannel (10.244.0.0/16), HAMi, ingress-nginx (NodePort 30080/30443),
# local-path as the default StorageClass; optionally a ZFS+NFS storage node (democratic-csi, StorageClass
# gshare-data) and a LAN registry. Guide: docs/operator/cluster-bootstrap.md
#
# Usage: cluster-bootstrap.sh <subcommand> [args]
#
# Subcommands (every one is idempotent and can be re-run):
#   up                         From a control machine: read hack/cluster-info, copy this script to every node
#                              (scp) and run over SSH: 1 prereqs (parallel) 2 reboot GPU workers with a new driver
#                              3 init 4 join (parallel) 5 addons 6 label 7 verify; then the storage node steps
#                              (STORAGE_NODE) and registry trust on every node (LOCAL_REGISTRY).
#   prereqs [--gpu]            On every node, as root: swap off (fstab line commented), overlay/br_netfilter,
#                              sysctl, containerd (SystemdCgroup, config_path), nfs-common, kubeadm/kubelet/kubectl
#                              1.36. --gpu: NVIDIA driver when nvidia-smi fails, nvidia-container-toolkit, nvidia
#                              runtime. Prints GSHARE_REBOOT_REQUIRED when a new driver needs a reboot.
#   init                       On the control plane, as root: kubeadm init (skipped when /healthz is ok), flannel,
#                              then prints the "kubeadm join ..." command.
#   join "<kubeadm join ...>"  On a worker, as root: join the cluster (skipped when kubelet.conf exists).
#   addons                     On the control plane: RuntimeClass nvidia, HAMi, ingress-nginx, local-path (default).
#   label <node> <mode>        On the control plane. mode: exclusive|fractional (gpu=on, gshare.io/gpu-mode),
#                              cpu (gshare.io/gpu-mode=cpu), storage (gshare.io/role=storage + NoSchedule taint).
#                              The lossless-pause labels gshare.io/criu=ready and gshare.io/cuda-checkpoint=ready
#                              are set by hand (kubectl label) once CRIU / cuda-checkpoint work on a node.
#   verify                     On the control plane: nodes Ready, nvidia.com/gpu and nvidia.com/gpumem capacity,
#                              HAMi, ingress-nginx, flannel and local-path pods Running, default StorageClass.
#   storage <device>           On the storage node, as root (needs STORAGE_CSI_PUBKEY): zfsutils-linux,
#                              nfs-kernel-server, ZFS pool gshare, datasets gshare/volumes and gshare/snapshots,
#                              ARC limit, SSH user gshare-csi with sudo limited to zfs/exportfs/chown.
#   storage-csi <ip> <key>     On the control plane: democratic-csi (zfs-generic-nfs) and StorageClass gshare-data,
#                              from deploy/storage/democratic-csi-values.yaml with <ip> and the private <key>.
#   registry                   On a node, as root: containerd certs.d/<host:port>/hosts.toml for LOCAL_REGISTRY and
#                              LOCAL_REGISTRY_MIRROR (+ docker.io routed to the mirror), config_path in config.toml.
#   help                       Print this text.
#
# Environment (defaults shown as ${VAR:-default}):
#   NVIDIA_DRIVER=${NVIDIA_DRIVER:-auto}           auto: ubuntu-drivers' recommended driver; a package name pins it
#                                                  (e.g. nvidia-driver-550-server); skip: never install a driver
#   NVIDIA_DRIVER_REBOOT=${NVIDIA_DRIVER_REBOOT:-0} 1: prereqs --gpu reboots at once after installing a driver
#                                                  (otherwise it only prints the hint; up reboots by itself)
#   REBOOT_WAIT_TRIES=${REBOOT_WAIT_TRIES:-120}    up: polls for a rebooted GPU worker (changed boot_id and a
#   REBOOT_WAIT_INTERVAL=${REBOOT_WAIT_INTERVAL:-5} working nvidia-smi), one every REBOOT_WAIT_INTERVAL s (10 min)
#   VERIFY_WAIT_TRIES=${VERIFY_WAIT_TRIES:-1}      verify: attempts (up uses 60) ...
#   VERIFY_WAIT_INTERVAL=${VERIFY_WAIT_INTERVAL:-10} ... seconds apart
#   HELM_SKIP_INSTALL=${HELM_SKIP_INSTALL:-0}      1: never install Helm (get-helm-3) when it is missing
#   INIT_FORCE_RESET=${INIT_FORCE_RESET:-1}        0: init warns and stops on leftovers instead of kubeadm reset -f
#   STORAGE_VDEVS=${STORAGE_VDEVS:-}               storage: zpool vdevs instead of <device>, e.g. "mirror /dev/vdb
#                                                  /dev/vdc" or "raidz /dev/vdb /dev/vdc /dev/vdd"
#   ZFS_ARC_MAX_MB=${ZFS_ARC_MAX_MB:-3072}         storage: ZFS ARC limit in MiB (3 GiB)
#   STORAGE_CSI_PUBKEY=${STORAGE_CSI_PUBKEY:-}     storage: public key authorized for the gshare-csi user
#   LOCAL_REGISTRY=${LOCAL_REGISTRY:-}             host:port of the LAN push registry (plain HTTP, e.g. :5000)
#   LOCAL_REGISTRY_MIRROR=${LOCAL_REGISTRY_MIRROR:-} host:port of the docker.io pull-through mirror (e.g. :5001)
#   SSH_OPTS=${SSH_OPTS:-}                         up: extra ssh/scp options, e.g. "-i ~/.ssh/id_ed25519
#                                                  -o StrictHostKeyChecking=accept-new" (use -o Port=N, not -p)
#   CLUSTER_INFO=${CLUSTER_INFO:-<repo>/hack/cluster-info}          up: the node list
#   STORAGE_CSI_KEY_FILE=${STORAGE_CSI_KEY_FILE:-<repo>/hack/storage-csi-key}  up: democratic-csi key pair
#                                                  (generated when missing; git-ignored)
#   REMOTE_DIR=${REMOTE_DIR:-gshare-bootstrap}     up: where the script is copied on nodes (relative to home)
#   K8S_VERSION=${K8S_VERSION:-1.36}               Kubernetes minor release of the apt repository
#   POD_CIDR=${POD_CIDR:-10.244.0.0/16}            kubeadm --pod-network-cidr (flannel's default)
#   CONTAINERD_PACKAGE=${CONTAINERD_PACKAGE:-containerd}  apt package providing containerd
#   HAMI_CHART_VERSION=${HAMI_CHART_VERSION:-2.10.0}      HAMi chart release
#   INGRESS_NGINX_CHART_VERSION=${INGRESS_NGINX_CHART_VERSION:-}   empty: latest
#   DEMOCRATIC_CSI_CHART_VERSION=${DEMOCRATIC_CSI_CHART_VERSION:-} empty: latest
#   ADDONS_DIR=${ADDONS_DIR:-<repo>/deploy/addons}                 values files used by addons
#   DEMOCRATIC_CSI_VALUES=${DEMOCRATIC_CSI_VALUES:-<repo>/deploy/storage/democratic-csi-values.yaml}
#   GSHARE_ROOT=${GSHARE_ROOT:-}                   prefix for every system path read or written (tests)
# Upstream locations (override for mirrors or air-gapped installs):
#   K8S_APT_REPO=${K8S_APT_REPO:-https://pkgs.k8s.io/core:/stable:/v${K8S_VERSION}/deb}
#   NVIDIA_CTK_APT_REPO=${NVIDIA_CTK_APT_REPO:-https://nvidia.github.io/libnvidia-container}
#   HELM_INSTALL_SCRIPT=${HELM_INSTALL_SCRIPT:-https://raw.githubusercontent.com/helm/helm/main/scripts/get-helm-3}
#   HAMI_CHART_REPO=${HAMI_CHART_REPO:-https://project-hami.github.io/HAMi}
#   INGRESS_NGINX_CHART_REPO=${INGRESS_NGINX_CHART_REPO:-https://kubernetes.github.io/ingress-nginx}
#   DEMOCRATIC_CSI_CHART_REPO=${DEMOCRATIC_CSI_CHART_REPO:-https://democratic-csi.github.io/charts}
#   FLANNEL_MANIFEST=${FLANNEL_MANIFEST:-https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml}
#   LOCAL_PATH_MANIFEST=${LOCAL_PATH_MANIFEST:-https://raw.githubusercontent.com/rancher/local-path-provisioner/v0.0.31/deploy/local-path-storage.yaml}
#   DOCKER_HUB_UPSTREAM=${DOCKER_HUB_UPSTREAM:-https://registry-1.docker.io}  docker.io fallback in hosts.toml
#
# Exit status: 0 success, 1 failure (the message names the node and step), 2 usage error (nothing changed).

set -o errexit -o nounset -o pipefail

SCRIPT_NAME="cluster-bootstrap.sh"
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/$(basename "${BASH_SOURCE[0]}")"
REPO_ROOT="$(cd "$(dirname "${SELF}")/.." && pwd -P)"

NVIDIA_DRIVER="${NVIDIA_DRIVER:-auto}"
NVIDIA_DRIVER_REBOOT="${NVIDIA_DRIVER_REBOOT:-0}"
REBOOT_WAIT_TRIES="${REBOOT_WAIT_TRIES:-120}"
REBOOT_WAIT_INTERVAL="${REBOOT_WAIT_INTERVAL:-5}"
VERIFY_WAIT_TRIES="${VERIFY_WAIT_TRIES:-1}"
VERIFY_WAIT_INTERVAL="${VERIFY_WAIT_INTERVAL:-10}"
HELM_SKIP_INSTALL="${HELM_SKIP_INSTALL:-0}"
INIT_FORCE_RESET="${INIT_FORCE_RESET:-1}"
STORAGE_VDEVS="${STORAGE_VDEVS:-}"
ZFS_ARC_MAX_MB="${ZFS_ARC_MAX_MB:-3072}"
STORAGE_CSI_PUBKEY="${STORAGE_CSI_PUBKEY:-}"
LOCAL_REGISTRY="${LOCAL_REGISTRY:-}"
LOCAL_REGISTRY_MIRROR="${LOCAL_REGISTRY_MIRROR:-}"
SSH_OPTS="${SSH_OPTS:-}"
CLUSTER_INFO="${CLUSTER_INFO:-${REPO_ROOT}/hack/cluster-info}"
STORAGE_CSI_KEY_FILE="${STORAGE_CSI_KEY_FILE:-${REPO_ROOT}/hack/storage-csi-key}"
REMOTE_DIR="${REMOTE_DIR:-gshare-bootstrap}"
K8S_VERSION="${K8S_VERSION:-1.36}"
POD_CIDR="${POD_CIDR:-10.244.0.0/16}"
CONTAINERD_PACKAGE="${CONTAINERD_PACKAGE:-containerd}"
HAMI_CHART_VERSION="${HAMI_CHART_VERSION:-2.10.0}"
INGRESS_NGINX_CHART_VERSION="${INGRESS_NGINX_CHART_VERSION:-}"
DEMOCRATIC_CSI_CHART_VERSION="${DEMOCRATIC_CSI_CHART_VERSION:-}"
ADDONS_DIR="${ADDONS_DIR:-${REPO_ROOT}/deploy/addons}"
DEMOCRATIC_CSI_VALUES="${DEMOCRATIC_CSI_VALUES:-${REPO_ROOT}/deploy/storage/democratic-csi-values.yaml}"
GSHARE_ROOT="${GSHARE_ROOT:-}"

# Upstream download locations: one variable each.
K8S_APT_REPO="${K8S_APT_REPO:-https://pkgs.k8s.io/core:/stable:/v${K8S_VERSION}/deb}"
NVIDIA_CTK_APT_REPO="${NVIDIA_CTK_APT_REPO:-https://nvidia.github.io/libnvidia-container}"
HELM_INSTALL_SCRIPT="${HELM_INSTALL_SCRIPT:-https://raw.githubusercontent.com/helm/helm/main/scripts/get-helm-3}"
HAMI_CHART_REPO="${HAMI_CHART_REPO:-https://project-hami.github.io/HAMi}"
INGRESS_NGINX_CHART_REPO="${INGRESS_NGINX_CHART_REPO:-https://kubernetes.github.io/ingress-nginx}"
DEMOCRATIC_CSI_CHART_REPO="${DEMOCRATIC_CSI_CHART_REPO:-https://democratic-csi.github.io/charts}"
FLANNEL_MANIFEST="${FLANNEL_MANIFEST:-https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml}"
LOCAL_PATH_MANIFEST="${LOCAL_PATH_MANIFEST:-https://raw.githubusercontent.com/rancher/local-path-provisioner/v0.0.31/deploy/local-path-storage.yaml}"
DOCKER_HUB_UPSTREAM="${DOCKER_HUB_UPSTREAM:-https://registry-1.docker.io}"

# System paths: every one is prefixed with GSHARE_ROOT so that the tests can run against a temporary root.
ROOT="${GSHARE_ROOT%/}"
FSTAB="${ROOT}/etc/fstab"
PASSWD_FILE="${ROOT}/etc/passwd"
MODULES_LOAD_FILE="${ROOT}/etc/modules-load.d/k8s.conf"
SYSCTL_FILE="${ROOT}/etc/sysctl.d/99-kubernetes-cri.conf"
APT_KEYRINGS_DIR="${ROOT}/etc/apt/keyrings"
APT_SOURCES_DIR="${ROOT}/etc/apt/sources.list.d"
CONTAINERD_CONFIG="${ROOT}/etc/containerd/config.toml"
CERTS_D_PATH="/etc/containerd/certs.d" # the value written into config.toml (a path on the node itself)
CERTS_D="${ROOT}${CERTS_D_PATH}"
K8S_DIR="${ROOT}/etc/kubernetes"
KUBELET_CONF="${K8S_DIR}/kubelet.conf"
ADMIN_CONF="${K8S_DIR}/admin.conf"
K8S_MANIFESTS_DIR="${K8S_DIR}/manifests"
ETCD_DATA_DIR="${ROOT}/var/lib/etcd"
CNI_CONF_DIR="${ROOT}/etc/cni/net.d"
MODPROBE_ZFS_CONF="${ROOT}/etc/modprobe.d/zfs.conf"
ZFS_ARC_PARAM="${ROOT}/sys/module/zfs/parameters/zfs_arc_max"
SUDOERS_FILE="${ROOT}/etc/sudoers.d/gshare-csi"
BOOT_ID_PATH="/proc/sys/kernel/random/boot_id"
BOOT_ID_FILE="${ROOT}${BOOT_ID_PATH}"

readonly ZPOOL_NAME="gshare"
readonly ZFS_DATASETS=("gshare/volumes" "gshare/snapshots")
readonly CSI_USER="gshare-csi"
readonly CSI_HOME_PATH="/home/${CSI_USER}"
readonly FIELD_MANAGER="gshare-bootstrap"
readonly REBOOT_MARKER="GSHARE_REBOOT_REQUIRED"
readonly KUBEADM_PORTS=(6443 2379 2380 10250 10257 10259)
readonly APISERVER_HEALTHZ="https://127.0.0.1:6443/healthz"
# Environment handed from `up` to the script on the nodes (only the ones that are set).
readonly PASSTHROUGH_VARS=(NVIDIA_DRIVER HELM_SKIP_INSTALL INIT_FORCE_RESET STORAGE_VDEVS ZFS_ARC_MAX_MB
  LOCAL_REGISTRY LOCAL_REGISTRY_MIRROR K8S_VERSION POD_CIDR CONTAINERD_PACKAGE HAMI_CHART_VERSION
  INGRESS_NGINX_CHART_VERSION DEMOCRATIC_CSI_CHART_VERSION K8S_APT_REPO NVIDIA_CTK_APT_REPO HELM_INSTALL_SCRIPT
  HAMI_CHART_REPO INGRESS_NGINX_CHART_REPO DEMOCRATIC_CSI_CHART_REPO FLANNEL_MANIFEST LOCAL_PATH_MANIFEST
  DOCKER_HUB_UPSTREAM)

readonly USAGE_LINE="Usage: ${SCRIPT_NAME} up|prereqs [--gpu]|init|join \"<kubeadm join ...>\"|addons|label <node> exclusive|fractional|cpu|storage|verify|storage <device>|storage-csi <ip> <key>|registry|help"

WORK_DIR=""
APT_UPDATED=0
REBOOT_REQUIRED=0
SSH_ARGS=()
REMOTE_ENV_EXTRA=()

# ---------------------------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------------------------

info() { printf '[cluster-bootstrap] %s\n' "$*" >&2; }
warn() { printf '[cluster-bootstrap] WARNING: %s\n' "$*" >&2; }
error() { printf '[cluster-bootstrap] ERROR: %s\n' "$*" >&2; }

# fatal <message> [hint]
fatal() {
  error "$1"
  if [[ $# -gt 1 ]]; then printf '[cluster-bootstrap]   hint: %s\n' "$2" >&2; fi
  exit 1
}

# usage_error <message> [usage line]: nothing has been changed when this is called.
usage_error() {
  printf '[cluster-bootstrap] ERROR: %s\n' "$1" >&2
  printf '%s\n' "${2:-${USAGE_LINE}}" >&2
  printf "Run '%s help' for every subcommand and variable.\n" "${SCRIPT_NAME}" >&2
  exit 2
}

usage() {
  # The header comment (from line 2 to the first line that is not a comment) is the help text.
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "${SELF}"
}

cleanup() {
  if [[ -n ${WORK_DIR} && -d ${WORK_DIR} ]]; then rm -rf "${WORK_DIR}"; fi
}

# ---------------------------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------------------------

require_root() {
  # Tests run against a temporary GSHARE_ROOT and may run unprivileged.
  if [[ ${EUID} -ne 0 && -z ${ROOT} ]]; then
    fatal "'$1' changes the system and must run as root" "sudo ./hack/${SCRIPT_NAME} $*"
  fi
}

require_cmd() {
  command -v "$1" >/dev/null 2>&1 || fatal "required command not found: $1" "$2"
}

require_kubectl() {
  require_cmd kubectl "run this on the control plane after '${SCRIPT_NAME} init' (or install kubectl with a kubeconfig)"
}

is_01() { [[ $1 == 0 || $1 == 1 ]]; }
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_host_port() { [[ $1 =~ ^[A-Za-z0-9.-]+:[0-9]+$ ]]; }

validate_common_env() {
  is_01 "${NVIDIA_DRIVER_REBOOT}" || usage_error "NVIDIA_DRIVER_REBOOT must be 0 or 1, got '${NVIDIA_DRIVER_REBOOT}'"
  is_01 "${HELM_SKIP_INSTALL}" || usage_error "HELM_SKIP_INSTALL must be 0 or 1, got '${HELM_SKIP_INSTALL}'"
  is_01 "${INIT_FORCE_RESET}" || usage_error "INIT_FORCE_RESET must be 0 or 1, got '${INIT_FORCE_RESET}'"
  is_uint "${REBOOT_WAIT_TRIES}" || usage_error "REBOOT_WAIT_TRIES must be a number, got '${REBOOT_WAIT_TRIES}'"
  is_uint "${REBOOT_WAIT_INTERVAL}" || usage_error "REBOOT_WAIT_INTERVAL must be a number, got '${REBOOT_WAIT_INTERVAL}'"
  is_uint "${VERIFY_WAIT_TRIES}" || usage_error "VERIFY_WAIT_TRIES must be a number, got '${VERIFY_WAIT_TRIES}'"
  is_uint "${VERIFY_WAIT_INTERVAL}" || usage_error "VERIFY_WAIT_INTERVAL must be a number, got '${VERIFY_WAIT_INTERVAL}'"
  is_uint "${ZFS_ARC_MAX_MB}" || usage_error "ZFS_ARC_MAX_MB must be a number of MiB, got '${ZFS_ARC_MAX_MB}'"
  [[ ${NVIDIA_DRIVER} =~ ^[a-z0-9][a-z0-9.+-]*$ ]] ||
    usage_error "NVIDIA_DRIVER must be auto, skip or a package name (e.g. nvidia-driver-550-server), got '${NVIDIA_DRIVER}'"
  if [[ -n ${LOCAL_REGISTRY} ]] && ! is_host_port "${LOCAL_REGISTRY}"; then
    usage_error "LOCAL_REGISTRY must be host:port, got '${LOCAL_REGISTRY}'"
  fi
  if [[ -n ${LOCAL_REGISTRY_MIRROR} ]] && ! is_host_port "${LOCAL_REGISTRY_MIRROR}"; then
    usage_error "LOCAL_REGISTRY_MIRROR must be host:port, got '${LOCAL_REGISTRY_MIRROR}'"
  fi
  return 0
}

# update_file <path> <mode>: content on stdin. Writes only when the content differs.
# Returns 0 when the file was written, 1 when it was already up to date.
update_file() {
  local path=$1 mode=$2 tmp
  tmp="$(mktemp "${WORK_DIR}/file.XXXXXX")"
  cat >"${tmp}"
  if [[ -f ${path} ]] && cmp -s "${tmp}" "${path}"; then
    return 1
  fi
  mkdir -p "$(dirname "${path}")"
  install -m "${mode}" "${tmp}" "${path}"
  return 0
}

# ---------------------------------------------------------------------------------------------------------------
# apt
# ---------------------------------------------------------------------------------------------------------------

pkg_installed() {
  local status
  # shellcheck disable=SC2016 # ${Status} is a dpkg-query format field
  status="$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" || return 1
  [[ ${status} == "install ok installed" ]]
}

apt_update_once() {
  if [[ ${APT_UPDATED} -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    APT_UPDATED=1
  fi
}

# apt_install <package>...: installs only the packages that are not installed yet.
apt_install() {
  local missing=() pkg
  for pkg in "$@"; do
    pkg_installed "${pkg}" || missing+=("${pkg}")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    return 0
  fi
  apt_update_once
  info "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
}

# install_keyring <url> <file name>: the keyring is always refreshed (overwritten) from upstream.
install_keyring() {
  local url=$1 name=$2 raw dearmored
  raw="${WORK_DIR}/${name}.asc"
  dearmored="${WORK_DIR}/${name}"
  curl -fsSL -o "${raw}" "${url}" || fatal "cannot download the apt key ${url}" "check the node's network/proxy"
  gpg --batch --yes --dearmor -o "${dearmored}" "${raw}"
  mkdir -p "${APT_KEYRINGS_DIR}"
  chmod 0755 "${APT_KEYRINGS_DIR}"
  if ! cmp -s "${dearmored}" "${APT_KEYRINGS_DIR}/${name}"; then
    APT_UPDATED=0
  fi
  install -m 0644 "${dearmored}" "${APT_KEYRINGS_DIR}/${name}"
}

# write_apt_source <file name> <line>
write_apt_source() {
  if printf '%s\n' "$2" | update_file "${APT_SOURCES_DIR}/$1" 0644; then
    APT_UPDATED=0
  fi
}

# ---------------------------------------------------------------------------------------------------------------
# prereqs
# ---------------------------------------------------------------------------------------------------------------

disable_swap() {
  swapoff -a
  [[ -f ${FSTAB} ]] || return 0
  local tmp="${WORK_DIR}/fstab"
  # Comment active swap entries in place: a second run finds them commented and changes nothing.
  awk '!/^[[:space:]]*#/ && $3 == "swap" { print "# " $0; next } { print }' "${FSTAB}" >"${tmp}"
  if ! cmp -s "${tmp}" "${FSTAB}"; then
    cat "${tmp}" >"${FSTAB}"
    info "commented the swap entries in ${FSTAB}"
  fi
}

setup_kernel() {
  printf 'overlay\nbr_netfilter\n' | update_file "${MODULES_LOAD_FILE}" 0644 || true
  modprobe overlay
  modprobe br_netfilter
  if printf '%s\n' 'net.bridge.bridge-nf-call-iptables  = 1' 'net.bridge.bridge-nf-call-ip6tables = 1' \
    'net.ipv4.ip_forward                 = 1' | update_file "${SYSCTL_FILE}" 0644; then
    sysctl --system >/dev/null
  fi
}

install_packages() {
  local gpu=$1
  local packages=("${CONTAINERD_PACKAGE}" nfs-common kubelet kubeadm kubectl)
  apt_install ca-certificates curl gpg
  install_keyring "${K8S_APT_REPO}/Release.key" kubernetes-apt-keyring.gpg
  write_apt_source kubernetes.list \
    "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] ${K8S_APT_REPO}/ /"
  if [[ ${gpu} -eq 1 ]]; then
    install_keyring "${NVIDIA_CTK_APT_REPO}/gpgkey" nvidia-container-toolkit-keyring.gpg
    # shellcheck disable=SC2016 # $(ARCH) is expanded by apt, not by the shell
    write_apt_source nvidia-container-toolkit.list \
      "deb [signed-by=/etc/apt/keyrings/nvidia-container-toolkit-keyring.gpg] ${NVIDIA_CTK_APT_REPO}/stable/deb/"'$(ARCH)'" /"
    packages+=(nvidia-container-toolkit)
  fi
  apt_install "${packages[@]}"
  apt-mark hold kubelet kubeadm kubectl >/dev/null
}

# A node whose nvidia-smi works is left alone; otherwise install the driver and flag the reboot.
ensure_nvidia_driver() {
  if nvidia-smi >/dev/null 2>&1; then
    info "nvidia-smi works: leaving the NVIDIA driver alone"
    return 0
  fi
  case ${NVIDIA_DRIVER} in
    skip)
      warn "nvidia-smi does not work and NVIDIA_DRIVER=skip: not installing a driver"
      return 0
      ;;
    auto)
      apt_install ubuntu-drivers-common
      info "installing the NVIDIA driver recommended by ubuntu-drivers"
      ubuntu-drivers install >&2
      ;;
    *)
      apt_update_once
      info "installing the pinned NVIDIA driver ${NVIDIA_DRIVER}"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${NVIDIA_DRIVER}" >&2
      ;;
  esac
  REBOOT_REQUIRED=1
}

# set_systemd_cgroup <config>: SystemdCgroup = true for runc and every runtime copied from it (nvidia).
set_systemd_cgroup() {
  local file=$1
  sed -i -E 's/^([[:space:]]*)SystemdCgroup[[:space:]]*=[[:space:]]*false/\1SystemdCgroup = true/' "${file}"
  if ! grep -Eq '^[[:space:]]*SystemdCgroup[[:space:]]*=[[:space:]]*true' "${file}"; then
    awk '{ print } /\.runtimes\.runc\.options\][[:space:]]*$/ { match($0, /^[[:space:]]*/); print substr($0, 1, RLENGTH) "  SystemdCgroup = true" }' \
      "${file}" >"${file}.new"
    mv "${file}.new" "${file}"
  fi
  grep -Eq '^[[:space:]]*SystemdCgroup[[:space:]]*=[[:space:]]*true' "${file}" ||
    fatal "could not set SystemdCgroup = true in the containerd config" "check 'containerd config default'"
}

# ensure_config_path <config>: the registry table's own config_path key points at certs.d, exactly once.
# Only a line whose key is exactly config_path inside the registry table is touched, so similar keys
# (plugin_config_path of NRI) are never rewritten.
ensure_config_path() {
  local file=$1 v3=0
  if grep -Eq '^[[:space:]]*version[[:space:]]*=[[:space:]]*3' "${file}"; then v3=1; fi
  awk -v want="${CERTS_D_PATH}" -v v3="${v3}" "$(
    cat <<'AWK'
function line(indent) { return indent "config_path = \"" want "\"" }
BEGIN { in_reg = 0; done = 0; seen = 0 }
/^[[:space:]]*\[/ {
  if (in_reg && !done) { print line(reg_indent "  "); done = 1 }
  in_reg = 0
  if ($0 ~ /^[[:space:]]*\[plugins\.["']io\.containerd\.(grpc\.v1\.cri|cri\.v1\.images)["']\.registry\][[:space:]]*$/) {
    in_reg = 1; seen = 1
    match($0, /^[[:space:]]*/); reg_indent = substr($0, 1, RLENGTH)
  }
  print; next
}
in_reg && /^[[:space:]]*config_path[[:space:]]*=/ {
  if (done) next
  match($0, /^[[:space:]]*/); ind = substr($0, 1, RLENGTH)
  val = $0; sub(/^[^=]*=[[:space:]]*/, "", val); sub(/[[:space:]]*$/, "", val)
  inner = val; gsub(/^["']|["']$/, "", inner)
  if (inner == "") print line(ind)
  else if (index(inner, want) > 0) print
  else print ind "config_path = \"" want ":" inner "\""
  done = 1; next
}
{ print }
END {
  if (in_reg && !done) { print line(reg_indent "  "); done = 1 }
  if (!seen) {
    print ""
    if (v3) print "[plugins.'io.containerd.cri.v1.images'.registry]"
    else print "[plugins.\"io.containerd.grpc.v1.cri\".registry]"
    print line("  ")
  }
}
AWK
  )" "${file}" >"${file}.new"
  mv "${file}.new" "${file}"
}

# install_containerd_config <candidate>: compare before acting; restart containerd only on a change.
install_containerd_config() {
  local candidate=$1
  if [[ -f ${CONTAINERD_CONFIG} ]] && cmp -s "${candidate}" "${CONTAINERD_CONFIG}"; then
    info "containerd config unchanged: no restart"
    return 0
  fi
  mkdir -p "$(dirname "${CONTAINERD_CONFIG}")"
  if [[ -f ${CONTAINERD_CONFIG} ]]; then cp -p "${CONTAINERD_CONFIG}" "${CONTAINERD_CONFIG}.bak"; fi
  install -m 0644 "${candidate}" "${CONTAINERD_CONFIG}"
  info "wrote ${CONTAINERD_CONFIG}; restarting containerd"
  systemctl restart containerd
}

# The config is regenerated from containerd's default template on every run (hand edits are replaced).
configure_containerd() {
  local gpu=$1 candidate="${WORK_DIR}/config.toml"
  containerd config default >"${candidate}"
  if [[ ${gpu} -eq 1 ]]; then
    nvidia-ctk runtime configure --runtime=containerd --config="${candidate}" >&2
  fi
  set_systemd_cgroup "${candidate}"
  ensure_config_path "${candidate}"
  install_containerd_config "${candidate}"
}

write_registry_hosts() {
  if [[ -n ${LOCAL_REGISTRY} ]]; then
    if update_file "${CERTS_D}/${LOCAL_REGISTRY}/hosts.toml" 0644 <<EOF; then
# written by ${SCRIPT_NAME} registry: plain-HTTP LAN registry (push + pull)
server = "http://${LOCAL_REGISTRY}"

[host."http://${LOCAL_REGISTRY}"]
  capabilities = ["pull", "resolve", "push"]
EOF
      info "trusting the registry ${LOCAL_REGISTRY} (plain HTTP)"
    fi
  fi
  if [[ -n ${LOCAL_REGISTRY_MIRROR} ]]; then
    if update_file "${CERTS_D}/${LOCAL_REGISTRY_MIRROR}/hosts.toml" 0644 <<EOF; then
# written by ${SCRIPT_NAME} registry: plain-HTTP docker.io pull-through mirror
server = "http://${LOCAL_REGISTRY_MIRROR}"

[host."http://${LOCAL_REGISTRY_MIRROR}"]
  capabilities = ["pull", "resolve"]
EOF
      info "trusting the mirror ${LOCAL_REGISTRY_MIRROR} (plain HTTP)"
    fi
    if update_file "${CERTS_D}/docker.io/hosts.toml" 0644 <<EOF; then
# written by ${SCRIPT_NAME} registry: docker.io pulls go through the LAN mirror, then upstream
server = "${DOCKER_HUB_UPSTREAM}"

[host."http://${LOCAL_REGISTRY_MIRROR}"]
  capabilities = ["pull", "resolve"]
EOF
      info "routing docker.io through ${LOCAL_REGISTRY_MIRROR}"
    fi
  fi
  return 0
}

cmd_prereqs() {
  local gpu=0
  while [[ $# -gt 0 ]]; do
    case $1 in
      --gpu) gpu=1 ;;
      *) usage_error "unknown prereqs option: $1" "Usage: ${SCRIPT_NAME} prereqs [--gpu]" ;;
    esac
    shift
  done
  require_root prereqs
  info "prereqs$([[ ${gpu} -eq 1 ]] && printf ' --gpu'): swap, kernel, packages, containerd"
  disable_swap
  setup_kernel
  install_packages "${gpu}"
  if [[ ${gpu} -eq 1 ]]; then
    ensure_nvidia_driver
  fi
  configure_containerd "${gpu}"
  write_registry_hosts
  systemctl enable --now containerd
  systemctl enable --now kubelet
  if [[ ${REBOOT_REQUIRED} -eq 1 ]]; then
    # Marker for `up`: the boot_id lets it tell the rebooted node from the current boot.
    local boot_id="unknown"
    if [[ -r ${BOOT_ID_FILE} ]]; then boot_id="$(<"${BOOT_ID_FILE}")"; fi
    printf '%s boot_id=%s\n' "${REBOOT_MARKER}" "${boot_id}"
    if [[ ${NVIDIA_DRIVER_REBOOT} -eq 1 ]]; then
      warn "a new NVIDIA driver was installed: rebooting now (NVIDIA_DRIVER_REBOOT=1)"
      reboot
    else
      warn "a new NVIDIA driver was installed: reboot this node to load it (sudo reboot), or rerun with NVIDIA_DRIVER_REBOOT=1"
    fi
  fi
  info "prereqs done"
}

# ---------------------------------------------------------------------------------------------------------------
# init / join
# ---------------------------------------------------------------------------------------------------------------

apiserver_healthy() {
  local body
  body="$(curl -fsSk --max-time 5 "${APISERVER_HEALTHZ}" 2>/dev/null)" || return 1
  [[ ${body} == ok ]]
}

# Prints one line per leftover of an earlier kubeadm run (nothing on a clean node).
init_leftovers() {
  if [[ -d ${K8S_MANIFESTS_DIR} ]] && [[ -n "$(ls -A "${K8S_MANIFESTS_DIR}" 2>/dev/null)" ]]; then
    printf 'static pod manifests in /etc/kubernetes/manifests\n'
  fi
  if [[ -f ${ADMIN_CONF} ]]; then printf '/etc/kubernetes/admin.conf exists\n'; fi
  if [[ -d ${ETCD_DATA_DIR} ]] && [[ -n "$(ls -A "${ETCD_DATA_DIR}" 2>/dev/null)" ]]; then
    printf 'etcd data in /var/lib/etcd\n'
  fi
  local listening port
  listening="$(ss -Hltn 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')" || true
  for port in "${KUBEADM_PORTS[@]}"; do
    if grep -qx "${port}" <<<"${listening}"; then printf 'port %s in use\n' "${port}"; fi
  done
}

setup_user_kubeconfig() {
  local user=${SUDO_USER:-} home group dest
  [[ -n ${user} && ${user} != root ]] || return 0
  home="$(getent passwd "${user}" | cut -d: -f6)" || return 0
  [[ -n ${home} ]] || return 0
  group="$(id -gn "${user}")"
  dest="${ROOT}${home}/.kube/config"
  if [[ -f ${dest} ]] && cmp -s "${ADMIN_CONF}" "${dest}"; then return 0; fi
  install -d -m 0700 -o "${user}" -g "${group}" "$(dirname "${dest}")"
  install -m 0600 -o "${user}" -g "${group}" "${ADMIN_CONF}" "${dest}"
  info "kubeconfig for ${user}: ${home}/.kube/config"
}

# kubectl/helm use admin.conf when run as root on the control plane without a kubeconfig of their own.
kube_env() {
  if [[ -z ${KUBECONFIG:-} && ! -r ${HOME:-/nonexistent}/.kube/config && -r ${ADMIN_CONF} ]]; then
    export KUBECONFIG="${ADMIN_CONF}"
  fi
}

cmd_init() {
  [[ $# -eq 0 ]] || usage_error "init takes no arguments" "Usage: ${SCRIPT_NAME} init"
  require_root init
  if apiserver_healthy; then
    info "kube-apiserver answers /healthz: cluster already initialised, skipping kubeadm init"
  else
    local leftovers
    leftovers="$(init_leftovers)"
    if [[ -n ${leftovers} ]]; then
      warn "leftovers of an earlier kubeadm run: $(paste -sd ';' <<<"${leftovers}")"
      if [[ ${INIT_FORCE_RESET} -eq 0 ]]; then
        fatal "not resetting the node because INIT_FORCE_RESET=0" \
          "inspect the node, then run 'sudo kubeadm reset -f' or rerun with INIT_FORCE_RESET=1"
      fi
      info "running kubeadm reset -f before initialising again"
      kubeadm reset -f >&2
      if [[ -d ${CNI_CONF_DIR} ]]; then find "${CNI_CONF_DIR}" -mindepth 1 -delete; fi
    fi
    local version
    version="$(kubeadm version -o short)"
    info "kubeadm init ${version} (pod CIDR ${POD_CIDR})"
    kubeadm init --pod-network-cidr="${POD_CIDR}" --kubernetes-version="${version}" >&2
  fi
  setup_user_kubeconfig
  kube_env
  info "applying flannel"
  kubectl apply --server-side --field-manager="${FIELD_MANAGER}" -f "${FLANNEL_MANIFEST}" >&2
  info "run on each worker: sudo ./hack/${SCRIPT_NAME} join \"<the line below>\""
  kubeadm token create --print-join-command
}

cmd_join() {
  local usage="Usage: ${SCRIPT_NAME} join \"kubeadm join <host>:6443 --token ... --discovery-token-ca-cert-hash sha256:...\""
  [[ $# -eq 1 ]] || usage_error "join takes exactly one argument: the join command in quotes" "${usage}"
  local words=()
  read -r -a words <<<"$1"
  if [[ ${#words[@]} -lt 3 || ${words[0]} != kubeadm || ${words[1]} != join ]]; then
    usage_error "the argument must be a 'kubeadm join ...' command" "${usage}"
  fi
  require_root join
  if [[ -f ${KUBELET_CONF} ]]; then
    info "/etc/kubernetes/kubelet.conf exists: node already joined, skipping"
    return 0
  fi
  info "joining ${words[2]}"
  kubeadm "${words[@]:1}" >&2
}

# ---------------------------------------------------------------------------------------------------------------
# addons / label / verify
# ---------------------------------------------------------------------------------------------------------------

ensure_helm() {
  if command -v helm >/dev/null 2>&1; then return 0; fi
  if [[ ${HELM_SKIP_INSTALL} -eq 1 ]]; then
    fatal "helm is not installed and HELM_SKIP_INSTALL=1" "install Helm v3, or unset HELM_SKIP_INSTALL"
  fi
  info "installing Helm v3 with get-helm-3"
  curl -fsSL -o "${WORK_DIR}/get-helm-3" "${HELM_INSTALL_SCRIPT}" ||
    fatal "cannot download ${HELM_INSTALL_SCRIPT}" "install Helm v3 yourself and rerun"
  bash "${WORK_DIR}/get-helm-3" >&2
  command -v helm >/dev/null 2>&1 || fatal "helm still not found after get-helm-3" "install Helm v3 yourself and rerun"
}

# Prints the server's gitVersion (vX.Y.Z) from `kubectl version -o json`.
server_version() {
  local json version
  json="$(kubectl version -o json 2>/dev/null)" || true
  version="$(printf '%s\n' "${json}" |
    sed -n '/"serverVersion"/,/}/ s/.*"gitVersion":[[:space:]]*"\([^"]*\)".*/\1/p' | head -n 1)"
  version="${version%%+*}"
  [[ ${version} =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]] ||
    fatal "cannot read the server version from 'kubectl version'" "check KUBECONFIG and that the API server is up"
  printf '%s\n' "${version}"
}

cmd_addons() {
  [[ $# -eq 0 ]] || usage_error "addons takes no arguments" "Usage: ${SCRIPT_NAME} addons"
  require_kubectl
  local file
  for file in runtimeclass-nvidia.yaml hami-values.yaml ingress-nginx-values.yaml; do
    [[ -f ${ADDONS_DIR}/${file} ]] ||
      fatal "missing ${ADDONS_DIR}/${file}" "run from a gShare checkout or set ADDONS_DIR"
  done
  kube_env
  ensure_helm
  info "RuntimeClass nvidia"
  kubectl apply --server-side --field-manager="${FIELD_MANAGER}" -f "${ADDONS_DIR}/runtimeclass-nvidia.yaml" >&2

  local kver
  kver="$(server_version)"
  info "HAMi (kube-scheduler image ${kver})"
  local hami=(helm upgrade --install hami hami --repo "${HAMI_CHART_REPO}" --namespace kube-system
    -f "${ADDONS_DIR}/hami-values.yaml" --set "scheduler.kubeScheduler.imageTag=${kver}")
  if [[ -n ${HAMI_CHART_VERSION} ]]; then hami+=(--version "${HAMI_CHART_VERSION}"); fi
  "${hami[@]}" >&2

  info "ingress-nginx (NodePort 30080/30443)"
  local ingress=(helm upgrade --install ingress-nginx ingress-nginx --repo "${INGRESS_NGINX_CHART_REPO}"
    --namespace ingress-nginx --create-namespace -f "${ADDONS_DIR}/ingress-nginx-values.yaml")
  if [[ -n ${INGRESS_NGINX_CHART_VERSION} ]]; then ingress+=(--version "${INGRESS_NGINX_CHART_VERSION}"); fi
  "${ingress[@]}" >&2

  info "local-path provisioner (default StorageClass)"
  kubectl apply --server-side --field-manager="${FIELD_MANAGER}" -f "${LOCAL_PATH_MANIFEST}" >&2
  kubectl annotate storageclass local-path storageclass.kubernetes.io/is-default-class=true --overwrite >&2
  info "addons done"
}

cmd_label() {
  local usage="Usage: ${SCRIPT_NAME} label <node> exclusive|fractional|cpu|storage"
  [[ $# -eq 2 ]] || usage_error "label takes a node name and a mode" "${usage}"
  local node=$1 mode=$2
  case ${mode} in
    exclusive | fractional | cpu | storage) ;;
    *) usage_error "unknown label mode '${mode}'" "${usage}" ;;
  esac
  require_kubectl
  kube_env
  case ${mode} in
    exclusive | fractional)
      kubectl label node "${node}" gpu=on "gshare.io/gpu-mode=${mode}" --overwrite >&2
      ;;
    cpu)
      # HAMi only manages nodes labelled gpu=on: a CPU node must not carry it.
      kubectl label node "${node}" gshare.io/gpu-mode=cpu gpu- --overwrite >&2
      ;;
    storage)
      kubectl label node "${node}" gshare.io/role=storage --overwrite >&2
      kubectl taint node "${node}" gshare.io/role=storage:NoSchedule --overwrite >&2
      ;;
  esac
  info "node ${node} labelled ${mode}"
}

# check_pods <namespace> <selector> <description>
check_pods() {
  local ns=$1 selector=$2 what=$3 out total running
  out="$(kubectl get pods -n "${ns}" -l "${selector}" --no-headers \
    -o 'custom-columns=NAME:.metadata.name,PHASE:.status.phase' 2>/dev/null)" || out=""
  total="$(grep -c . <<<"${out}" || true)"
  running="$(awk '$2 == "Running"' <<<"${out}" | grep -c . || true)"
  if [[ ${total} -gt 0 && ${running} -eq ${total} ]]; then
    info "  ok   ${what}: ${running}/${total} pods Running"
    return 0
  fi
  info "  FAIL ${what}: ${running}/${total} pods Running (kubectl get pods -n ${ns} -l ${selector})"
  return 1
}

# registered_gpu_memory <node>: total MiB in HAMi's hami.io/node-nvidia-register annotation (JSON since
# v2.8: "devmem":N per device; before: uuid,count,devmem,devcore,type,... joined by ':'), or <none>.
registered_gpu_memory() {
  local register total
  register="$(kubectl get node "$1" -o 'jsonpath={.metadata.annotations.hami\.io/node-nvidia-register}' 2>/dev/null)" ||
    register=""
  if [[ ${register} == \[* ]]; then
    total="$(grep -oE '"devmem": *[0-9]+' <<<"${register}" | grep -oE '[0-9]+$' | awk '{ t += $1 } END { print t + 0 }')"
  else
    total="$(tr ':' '\n' <<<"${register}" | awk -F, 'NF >= 3 && $3 ~ /^[0-9]+$/ { t += $3 } END { print t + 0 }')"
  fi
  if [[ ${total} -gt 0 ]]; then printf '%s\n' "${total}"; else printf '<none>\n'; fi
}

verify_once() {
  local failed=0 out name status gpu gpumem gpu_nodes=0
  out="$(kubectl get nodes --no-headers \
    -o 'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status' 2>/dev/null)" || out=""
  if [[ -z ${out} ]]; then
    info "  FAIL nodes: none listed (is the API server reachable?)"
    failed=1
  fi
  while read -r name status; do
    [[ -n ${name} ]] || continue
    if [[ ${status} == True ]]; then
      info "  ok   node ${name} Ready"
    else
      info "  FAIL node ${name} not Ready (${status})"
      failed=1
    fi
  done <<<"${out}"

  out="$(kubectl get nodes -l gpu=on --no-headers \
    -o 'custom-columns=NAME:.metadata.name,GPU:.status.capacity.nvidia\.com/gpu,GPUMEM:.status.capacity.nvidia\.com/gpumem' \
    2>/dev/null)" || out=""
  while read -r name gpu gpumem; do
    [[ -n ${name} ]] || continue
    gpu_nodes=$((gpu_nodes + 1))
    if ! is_uint "${gpumem}" || [[ ${gpumem} -eq 0 ]]; then
      # HAMi accounts GPU memory in its scheduler: without a node capacity, read the device memory it registered.
      gpumem="$(registered_gpu_memory "${name}")"
    fi
    if is_uint "${gpu}" && is_uint "${gpumem}" && [[ ${gpu} -gt 0 && ${gpumem} -gt 0 ]]; then
      info "  ok   node ${name}: nvidia.com/gpu=${gpu} nvidia.com/gpumem=${gpumem} MiB"
    else
      info "  FAIL node ${name}: nvidia.com/gpu=${gpu} nvidia.com/gpumem=${gpumem} (HAMi device plugin, gpu=on label, driver?)"
      failed=1
    fi
  done <<<"${out}"
  if [[ ${gpu_nodes} -eq 0 ]]; then
    warn "  no node is labelled gpu=on (./hack/${SCRIPT_NAME} label <node> exclusive|fractional)"
  else
    check_pods kube-system app.kubernetes.io/component=hami-device-plugin "HAMi device plugin" || failed=1
  fi
  check_pods kube-system app.kubernetes.io/component=hami-scheduler "HAMi scheduler" || failed=1
  check_pods ingress-nginx app.kubernetes.io/component=controller "ingress-nginx controller" || failed=1
  check_pods kube-flannel app=flannel "flannel" || failed=1
  check_pods local-path-storage app=local-path-provisioner "local-path provisioner" || failed=1

  out="$(kubectl get storageclass --no-headers \
    -o 'custom-columns=NAME:.metadata.name,DEFAULT:.metadata.annotations.storageclass\.kubernetes\.io/is-default-class' \
    2>/dev/null)" || out=""
  if awk '$1 == "local-path" && $2 == "true" { found = 1 } END { exit !found }' <<<"${out}"; then
    info "  ok   default StorageClass local-path"
  else
    info "  FAIL local-path is not the default StorageClass"
    failed=1
  fi
  if awk '$1 == "gshare-data" { found = 1 } END { exit !found }' <<<"${out}"; then
    info "  ok   StorageClass gshare-data (storage node)"
  fi
  return "${failed}"
}

cmd_verify() {
  [[ $# -eq 0 ]] || usage_error "verify takes no arguments" "Usage: ${SCRIPT_NAME} verify"
  require_kubectl
  kube_env
  local try
  for ((try = 1; ; try++)); do
    info "verify (attempt ${try}/${VERIFY_WAIT_TRIES})"
    if verify_once; then
      info "verify: all checks passed"
      return 0
    fi
    if [[ ${try} -ge ${VERIFY_WAIT_TRIES} ]]; then
      fatal "verify: some checks failed (see FAIL lines above)" \
        "kubectl get pods -A -o wide; kubectl describe node <node>; rerun verify once pods have started"
    fi
    sleep "${VERIFY_WAIT_INTERVAL}"
  done
}

# ---------------------------------------------------------------------------------------------------------------
# storage node
# ---------------------------------------------------------------------------------------------------------------

cmd_storage() {
  local usage="Usage: STORAGE_CSI_PUBKEY=\"\$(cat key.pub)\" ${SCRIPT_NAME} storage <device>   (e.g. /dev/vdb)"
  [[ $# -eq 1 ]] || usage_error "storage takes exactly one block device" "${usage}"
  local device=$1
  [[ ${device} == /dev/?* ]] || usage_error "the device must be a /dev path, got '${device}'" "${usage}"
  [[ -n ${STORAGE_CSI_PUBKEY} ]] || usage_error "STORAGE_CSI_PUBKEY is empty: the gshare-csi user needs a key" "${usage}"
  [[ ${STORAGE_CSI_PUBKEY} =~ ^(ssh-|ecdsa-)[A-Za-z0-9-]+\ [A-Za-z0-9+/=]+ ]] ||
    usage_error "STORAGE_CSI_PUBKEY does not look like an OpenSSH public key" "${usage}"
  require_root storage
  apt_install zfsutils-linux nfs-kernel-server

  local vdevs=()
  read -r -a vdevs <<<"${STORAGE_VDEVS:-${device}}"
  if zpool list -H -o name "${ZPOOL_NAME}" >/dev/null 2>&1; then
    info "ZFS pool ${ZPOOL_NAME} exists: leaving it alone"
  else
    if [[ -n ${STORAGE_VDEVS} ]]; then info "STORAGE_VDEVS replaces ${device}: ${STORAGE_VDEVS}"; fi
    info "creating ZFS pool ${ZPOOL_NAME} on ${vdevs[*]} (the device must be empty)"
    zpool create -o ashift=12 -O compression=lz4 -O atime=off -O xattr=sa -O acltype=posixacl \
      -O mountpoint="/${ZPOOL_NAME}" "${ZPOOL_NAME}" "${vdevs[@]}" ||
      fatal "zpool create failed on ${vdevs[*]}" "the device must be empty (wipefs -a <device>) and not mounted"
  fi
  local dataset
  for dataset in "${ZFS_DATASETS[@]}"; do
    if ! zfs list -H -o name "${dataset}" >/dev/null 2>&1; then
      info "creating dataset ${dataset}"
      zfs create "${dataset}"
    fi
  done

  local arc_bytes=$((ZFS_ARC_MAX_MB * 1024 * 1024))
  if printf 'options zfs zfs_arc_max=%s\n' "${arc_bytes}" | update_file "${MODPROBE_ZFS_CONF}" 0644; then
    info "ZFS ARC limited to ${ZFS_ARC_MAX_MB} MiB (${MODPROBE_ZFS_CONF#"${ROOT}"})"
  fi
  if [[ -w ${ZFS_ARC_PARAM} && "$(<"${ZFS_ARC_PARAM}")" != "${arc_bytes}" ]]; then
    printf '%s\n' "${arc_bytes}" >"${ZFS_ARC_PARAM}"
  fi

  if ! grep -q "^${CSI_USER}:" "${PASSWD_FILE}" 2>/dev/null; then
    info "creating the SSH user ${CSI_USER}"
    useradd --create-home --home-dir "${CSI_HOME_PATH}" --shell /bin/bash "${CSI_USER}"
  fi
  local ssh_dir="${ROOT}${CSI_HOME_PATH}/.ssh"
  mkdir -p "${ssh_dir}"
  chmod 0700 "${ssh_dir}"
  if printf '%s\n' "${STORAGE_CSI_PUBKEY}" | update_file "${ssh_dir}/authorized_keys" 0600; then
    info "authorized the democratic-csi key for ${CSI_USER}"
  fi
  chown -R "${CSI_USER}:${CSI_USER}" "${ssh_dir}"

  local sudoers="${WORK_DIR}/sudoers"
  cat >"${sudoers}" <<EOF
# written by ${SCRIPT_NAME} storage: democratic-csi (zfs-generic-nfs) may run only these as root
${CSI_USER} ALL=(root) NOPASSWD: /usr/sbin/zfs, /usr/sbin/exportfs, /usr/bin/chown
EOF
  visudo -cf "${sudoers}" >/dev/null || fatal "the generated sudoers file does not validate" "check visudo -cf"
  if update_file "${SUDOERS_FILE}" 0440 <"${sudoers}"; then
    info "sudo for ${CSI_USER} limited to zfs, exportfs, chown"
  fi
  systemctl enable --now nfs-server
  info "storage node ready: pool ${ZPOOL_NAME}, datasets ${ZFS_DATASETS[*]}"
}

cmd_storage_csi() {
  local usage="Usage: ${SCRIPT_NAME} storage-csi <storage-node-ip> <private-key-file>"
  [[ $# -eq 2 ]] || usage_error "storage-csi takes the storage node address and the private key file" "${usage}"
  local host=$1 key=$2
  [[ ${host} =~ ^[A-Za-z0-9.:-]+$ ]] || usage_error "bad storage node address '${host}'" "${usage}"
  [[ -r ${key} ]] || usage_error "cannot read the private key file '${key}'" "${usage}"
  grep -q 'PRIVATE KEY' "${key}" || usage_error "'${key}' is not a private key" "${usage}"
  [[ -f ${DEMOCRATIC_CSI_VALUES} ]] ||
    fatal "missing ${DEMOCRATIC_CSI_VALUES}" "run from a gShare checkout or set DEMOCRATIC_CSI_VALUES"
  require_kubectl
  kube_env
  ensure_helm
  local values="${WORK_DIR}/democratic-csi-values.yaml"
  (
    umask 077
    awk -v host="${host}" -v keyfile="${key}" '
      index($0, "__STORAGE_CSI_PRIVATE_KEY__") {
        match($0, /^[[:space:]]*/); ind = substr($0, 1, RLENGTH)
        while ((getline l < keyfile) > 0) print ind l
        close(keyfile); next
      }
      { gsub(/__STORAGE_HOST__/, host); print }' "${DEMOCRATIC_CSI_VALUES}" >"${values}"
  )
  # Release gshare-storage in namespace gshare-storage, as attach-cluster.sh installs it and the operator guide reads
  # it back (helm -n gshare-storage get values gshare-storage). A driver installed under the old name would be a
  # second one serving the same StorageClass: it must go first.
  if helm status gshare-csi --namespace democratic-csi >/dev/null 2>&1; then
    fatal "democratic-csi is installed as the old release gshare-csi in namespace democratic-csi; gShare installs it as release gshare-storage in namespace gshare-storage" \
      "move it: helm -n democratic-csi uninstall gshare-csi (mounted volumes stay mounted and their data stays; new mounts wait until the driver is back), then run storage-csi again"
  fi
  info "democratic-csi (zfs-generic-nfs) against ${host}, StorageClass gshare-data, release gshare-storage"
  local csi=(helm upgrade --install gshare-storage democratic-csi --repo "${DEMOCRATIC_CSI_CHART_REPO}"
    --namespace gshare-storage --create-namespace -f "${values}")
  if [[ -n ${DEMOCRATIC_CSI_CHART_VERSION} ]]; then csi+=(--version "${DEMOCRATIC_CSI_CHART_VERSION}"); fi
  "${csi[@]}" >&2
  info "storage-csi done"
}

# ---------------------------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------------------------

cmd_registry() {
  local usage="Usage: LOCAL_REGISTRY=<ip>:5000 LOCAL_REGISTRY_MIRROR=<ip>:5001 ${SCRIPT_NAME} registry"
  [[ $# -eq 0 ]] || usage_error "registry takes no arguments" "${usage}"
  [[ -n ${LOCAL_REGISTRY} || -n ${LOCAL_REGISTRY_MIRROR} ]] ||
    usage_error "set LOCAL_REGISTRY and/or LOCAL_REGISTRY_MIRROR" "${usage}"
  require_root registry
  [[ -f ${CONTAINERD_CONFIG} ]] ||
    fatal "${CONTAINERD_CONFIG#"${ROOT}"} not found" "run '${SCRIPT_NAME} prereqs' on this node first"
  write_registry_hosts
  local candidate="${WORK_DIR}/config.toml"
  cp "${CONTAINERD_CONFIG}" "${candidate}"
  ensure_config_path "${candidate}"
  install_containerd_config "${candidate}"
  info "registry trust done"
}

# ---------------------------------------------------------------------------------------------------------------
# up: the whole cluster from a control machine
# ---------------------------------------------------------------------------------------------------------------

MASTER=""
GPU_NODES=()
GPU_MODES=()
CPU_NODES=()
STORAGE_HOST=""
STORAGE_DEVICE=""

# Strips quotes (and a trailing comment after an unquoted value) from a cluster-info value.
info_value() {
  local v=$1
  v="${v#"${v%%[![:space:]]*}"}"
  case ${v} in
    \"*) v="${v#\"}" && v="${v%%\"*}" ;;
    \'*) v="${v#\'}" && v="${v%%\'*}" ;;
    *) v="${v%%[[:space:]]#*}" ;;
  esac
  v="${v%"${v##*[![:space:]]}"}"
  printf '%s' "${v}"
}

is_ssh_target() { [[ $1 =~ ^([A-Za-z0-9._-]+@)?[A-Za-z0-9._-]+$ ]]; }

load_cluster_info() {
  local file=$1 line key value n=0 entry mode
  local master="" workers="" cpu="" storage=""
  while IFS= read -r line || [[ -n ${line} ]]; do
    n=$((n + 1))
    line="${line#"${line%%[![:space:]]*}"}"
    [[ -z ${line} || ${line} == \#* ]] && continue
    line="${line#export }"
    [[ ${line} == *=* ]] || usage_error "${file}:${n}: expected KEY=VALUE, got '${line}'"
    key="${line%%=*}"
    value="$(info_value "${line#*=}")"
    case ${key} in
      MASTER_NODE) master=${value} ;;
      WORKER_NODES) workers=${value} ;;
      CPU_WORKERS) cpu=${value} ;;
      STORAGE_NODE) storage=${value} ;;
      # The environment wins over the file for these.
      LOCAL_REGISTRY) LOCAL_REGISTRY=${LOCAL_REGISTRY:-${value}} ;;
      LOCAL_REGISTRY_MIRROR) LOCAL_REGISTRY_MIRROR=${LOCAL_REGISTRY_MIRROR:-${value}} ;;
      SSH_OPTS) SSH_OPTS=${SSH_OPTS:-${value}} ;;
      *) warn "${file}:${n}: unknown key ${key} ignored" ;;
    esac
  done <"${file}"

  [[ -n ${master} ]] || usage_error "${file}: MASTER_NODE is not set (user@ip of the control plane)"
  is_ssh_target "${master}" || usage_error "${file}: MASTER_NODE must be user@ip, got '${master}'"
  MASTER=${master}
  local entries=()
  IFS=',' read -r -a entries <<<"${workers}"
  for entry in "${entries[@]}"; do
    entry="${entry//[[:space:]]/}"
    [[ -n ${entry} ]] || continue
    mode=fractional
    if [[ ${entry} == *:* ]]; then
      mode="${entry##*:}"
      entry="${entry%:*}"
    fi
    case ${mode} in
      exclusive | fractional) ;;
      *) usage_error "${file}: WORKER_NODES entry '${entry}:${mode}': mode must be exclusive or fractional" ;;
    esac
    is_ssh_target "${entry}" || usage_error "${file}: WORKER_NODES entry must be user@ip[:mode], got '${entry}'"
    GPU_NODES+=("${entry}")
    GPU_MODES+=("${mode}")
  done
  IFS=',' read -r -a entries <<<"${cpu}"
  for entry in "${entries[@]}"; do
    entry="${entry//[[:space:]]/}"
    [[ -n ${entry} ]] || continue
    is_ssh_target "${entry}" || usage_error "${file}: CPU_WORKERS entry must be user@ip, got '${entry}'"
    CPU_NODES+=("${entry}")
  done
  if [[ -n ${storage} ]]; then
    STORAGE_HOST="${storage%%:*}"
    STORAGE_DEVICE="${storage#*:}"
    if [[ ${storage} != *:* || ${STORAGE_DEVICE} != /dev/?* ]] || ! is_ssh_target "${STORAGE_HOST}"; then
      usage_error "${file}: STORAGE_NODE must be user@ip:/dev/<device>, got '${storage}'"
    fi
  fi
  if [[ ${#GPU_NODES[@]} -eq 0 ]]; then warn "${file}: WORKER_NODES is empty: no GPU workers"; fi
}

# Every distinct node, control plane first.
all_nodes() {
  local seen=" " n
  for n in "${MASTER}" "${GPU_NODES[@]}" "${CPU_NODES[@]}" ${STORAGE_HOST:+"${STORAGE_HOST}"}; do
    [[ ${seen} == *" ${n} "* ]] && continue
    seen+="${n} "
    printf '%s\n' "${n}"
  done
}

ssh_node() {
  local node=$1
  shift
  ssh "${SSH_ARGS[@]}" -o BatchMode=yes -o ConnectTimeout=10 "${node}" "$@"
}

# remote_cmd <subcommand args...>: the command line run on a node (root, with the passthrough environment).
remote_cmd() {
  local cmd="sudo env" var arg quoted
  for var in "${PASSTHROUGH_VARS[@]}"; do
    if [[ -n ${!var} ]]; then
      printf -v quoted '%q' "${var}=${!var}"
      cmd+=" ${quoted}"
    fi
  done
  for arg in "${REMOTE_ENV_EXTRA[@]}" bash "${REMOTE_DIR}/hack/${SCRIPT_NAME}" "$@"; do
    printf -v quoted '%q' "${arg}"
    cmd+=" ${quoted}"
  done
  printf '%s' "${cmd}"
}

step_log() { printf '%s/%s.%s.log' "${WORK_DIR}" "$1" "${2//[^A-Za-z0-9._-]/_}"; }

# run_on <node> <step> <subcommand args...>: stdout goes to the step log (markers), everything is shown
# on stderr prefixed with the node. Returns non-zero, naming node and step, on failure.
run_on() {
  local node=$1 step=$2 log rc=0
  shift 2
  log="$(step_log "${step}" "${node}")"
  { ssh_node "${node}" "$(remote_cmd "$@")" </dev/null | tee "${log}"; } 2>&1 | sed "s|^|[${node}] |" >&2 || rc=$?
  if [[ ${rc} -ne 0 ]]; then
    error "node ${node}: step ${step} failed (exit ${rc})"
    return "${rc}"
  fi
}

# run_parallel <step> <node>|<args> ...: one background job per node, then wait for all of them.
run_parallel() {
  local step=$1 spec node args pids=() nodes=() failed=() i
  shift
  for spec in "$@"; do
    node="${spec%%|*}"
    args="${spec#*|}"
    local argv=()
    read -r -a argv <<<"${args}"
    run_on "${node}" "${step}" "${argv[@]}" &
    pids+=("$!")
    nodes+=("${node}")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[${i}]}" || failed+=("${nodes[${i}]}")
  done
  if [[ ${#failed[@]} -gt 0 ]]; then
    fatal "step ${step} failed on: ${failed[*]}" "see the [node] lines above; fix the node and rerun '${SCRIPT_NAME} up'"
  fi
}

copy_bundle() {
  local node=$1 dir
  dir="$(printf '%q' "${REMOTE_DIR}")"
  ssh_node "${node}" "mkdir -p ${dir}/hack ${dir}/deploy" </dev/null ||
    fatal "node ${node}: step copy failed (ssh)" "check ssh-copy-id and SSH_OPTS for ${node}"
  scp -q "${SSH_ARGS[@]}" "${SELF}" "${node}:${REMOTE_DIR}/hack/${SCRIPT_NAME}" ||
    fatal "node ${node}: step copy failed (scp)" "check SSH access to ${node}"
  scp -q -r "${SSH_ARGS[@]}" "${REPO_ROOT}/deploy/addons" "${REPO_ROOT}/deploy/storage" "${REPO_ROOT}/deploy/registry" \
    "${node}:${REMOTE_DIR}/deploy/" || fatal "node ${node}: step copy failed (scp deploy/)" "check SSH access to ${node}"
}

# reboot_and_wait <node> [boot_id reported by prereqs]: reboot, then poll for a changed boot_id and a
# working nvidia-smi.
reboot_and_wait() {
  local node=$1 old=${2:-} new try last="no answer"
  if [[ -z ${old} || ${old} == unknown ]]; then
    old="$(ssh_node "${node}" "cat ${BOOT_ID_PATH}" </dev/null)" || {
      error "node ${node}: step reboot failed: cannot read ${BOOT_ID_PATH}"
      return 1
    }
  fi
  info "[${node}] rebooting to load the new NVIDIA driver (boot_id ${old})"
  ssh_node "${node}" "sudo reboot" </dev/null >/dev/null 2>&1 || true
  for ((try = 1; try <= REBOOT_WAIT_TRIES; try++)); do
    sleep "${REBOOT_WAIT_INTERVAL}"
    new="$(ssh_node "${node}" "cat ${BOOT_ID_PATH}" </dev/null 2>/dev/null)" || continue
    if [[ -z ${new} || ${new} == "${old}" ]]; then
      last="boot_id unchanged"
      continue
    fi
    if ssh_node "${node}" "nvidia-smi" </dev/null >/dev/null 2>&1; then
      info "[${node}] back with boot_id ${new} and a working nvidia-smi"
      return 0
    fi
    last="boot_id changed but nvidia-smi fails"
  done
  error "node ${node}: step reboot failed: no new boot_id with a working nvidia-smi after ${REBOOT_WAIT_TRIES} tries x ${REBOOT_WAIT_INTERVAL} s (${last})"
  return 1
}

node_name() {
  local node=$1 name
  name="$(ssh_node "${node}" hostname </dev/null)" || fatal "node ${node}: step label failed: cannot read its hostname"
  name="$(tr '[:upper:]' '[:lower:]' <<<"${name}")"
  [[ -n ${name} ]] || fatal "node ${node}: step label failed: empty hostname"
  printf '%s\n' "${name}"
}

ensure_csi_keypair() {
  if [[ -f ${STORAGE_CSI_KEY_FILE} && -f ${STORAGE_CSI_KEY_FILE}.pub ]]; then return 0; fi
  info "generating the democratic-csi SSH key pair ${STORAGE_CSI_KEY_FILE} (git-ignored)"
  mkdir -p "$(dirname "${STORAGE_CSI_KEY_FILE}")"
  rm -f "${STORAGE_CSI_KEY_FILE}" "${STORAGE_CSI_KEY_FILE}.pub"
  ssh-keygen -q -t rsa -b 4096 -m PEM -N '' -C "${CSI_USER}" -f "${STORAGE_CSI_KEY_FILE}"
}

cmd_up() {
  [[ $# -eq 0 ]] || usage_error "up takes no arguments (the nodes come from ${CLUSTER_INFO})" "Usage: ${SCRIPT_NAME} up"
  [[ -f ${CLUSTER_INFO} ]] || usage_error "cluster info not found: ${CLUSTER_INFO} (cp hack/cluster-info.example hack/cluster-info, then fill in MASTER_NODE and WORKER_NODES)" "Usage: ${SCRIPT_NAME} up"
  load_cluster_info "${CLUSTER_INFO}"
  validate_common_env
  read -r -a SSH_ARGS <<<"${SSH_OPTS}"
  require_cmd ssh "install openssh-client"
  require_cmd scp "install openssh-client"

  local nodes=() node i specs=()
  mapfile -t nodes < <(all_nodes)
  info "cluster: control plane ${MASTER}; GPU workers: ${GPU_NODES[*]:-none}; CPU workers: ${CPU_NODES[*]:-none}; storage: ${STORAGE_HOST:-none}"

  info "== copying the script to ${#nodes[@]} node(s)"
  for node in "${nodes[@]}"; do copy_bundle "${node}"; done

  info "== 1/7 prereqs (parallel)"
  specs=("${MASTER}|prereqs")
  for node in "${CPU_NODES[@]}"; do specs+=("${node}|prereqs"); done
  if [[ -n ${STORAGE_HOST} ]]; then specs+=("${STORAGE_HOST}|prereqs"); fi
  for node in "${GPU_NODES[@]}"; do specs+=("${node}|prereqs --gpu"); done
  run_parallel prereqs "${specs[@]}"

  info "== 2/7 reboot GPU workers with a new driver"
  local reboot=() boot_ids=() pids=() failed=() marker
  for node in "${GPU_NODES[@]}"; do
    marker="$(grep -m 1 "^${REBOOT_MARKER}" "$(step_log prereqs "${node}")" 2>/dev/null || true)"
    if [[ -n ${marker} ]]; then
      reboot+=("${node}")
      boot_ids+=("$(sed -n 's/.*boot_id=\([^[:space:]]*\).*/\1/p' <<<"${marker}")")
    fi
  done
  if [[ ${#reboot[@]} -eq 0 ]]; then info "no GPU worker needs a reboot"; fi
  for i in "${!reboot[@]}"; do
    reboot_and_wait "${reboot[${i}]}" "${boot_ids[${i}]}" &
    pids+=("$!")
  done
  for i in "${!pids[@]}"; do wait "${pids[${i}]}" || failed+=("${reboot[${i}]}"); done
  if [[ ${#failed[@]} -gt 0 ]]; then
    fatal "step reboot failed on: ${failed[*]}" "check the driver on the node (nvidia-smi, dmesg), or raise REBOOT_WAIT_TRIES"
  fi

  info "== 3/7 init on ${MASTER}"
  run_on "${MASTER}" init init || fatal "node ${MASTER}: step init failed" "run 'sudo ./hack/${SCRIPT_NAME} init' on it to see why"
  local join
  join="$(grep -m 1 '^kubeadm join ' "$(step_log init "${MASTER}")" || true)"
  [[ -n ${join} ]] || fatal "node ${MASTER}: step init printed no 'kubeadm join' command" "run 'kubeadm token create --print-join-command' there"

  info "== 4/7 join workers (parallel)"
  specs=()
  for node in "${GPU_NODES[@]}" "${CPU_NODES[@]}" ${STORAGE_HOST:+"${STORAGE_HOST}"}; do
    [[ ${node} == "${MASTER}" ]] && continue
    specs+=("${node}")
  done
  if [[ ${#specs[@]} -gt 0 ]]; then
    # The join command has spaces: run_on directly instead of the word-splitting spec format.
    local jpids=() jnodes=() jfailed=()
    for node in "${specs[@]}"; do
      run_on "${node}" join join "${join}" &
      jpids+=("$!")
      jnodes+=("${node}")
    done
    for i in "${!jpids[@]}"; do wait "${jpids[${i}]}" || jfailed+=("${jnodes[${i}]}"); done
    if [[ ${#jfailed[@]} -gt 0 ]]; then
      fatal "step join failed on: ${jfailed[*]}" "see the [node] lines above; fix the node and rerun '${SCRIPT_NAME} up'"
    fi
  fi

  info "== 5/7 addons on ${MASTER}"
  run_on "${MASTER}" addons addons || fatal "node ${MASTER}: step addons failed" "see the [${MASTER}] lines above"

  info "== 6/7 labels"
  local name
  name="$(node_name "${MASTER}")"
  run_on "${MASTER}" label label "${name}" cpu || fatal "node ${MASTER}: step label failed" "see above"
  for node in "${CPU_NODES[@]}"; do
    name="$(node_name "${node}")"
    run_on "${MASTER}" label label "${name}" cpu || fatal "node ${node}: step label failed" "see above"
  done
  for i in "${!GPU_NODES[@]}"; do
    name="$(node_name "${GPU_NODES[${i}]}")"
    run_on "${MASTER}" label label "${name}" "${GPU_MODES[${i}]}" ||
      fatal "node ${GPU_NODES[${i}]}: step label failed" "see above"
  done

  info "== 7/7 verify"
  REMOTE_ENV_EXTRA=("VERIFY_WAIT_TRIES=60" "VERIFY_WAIT_INTERVAL=10")
  run_on "${MASTER}" verify verify || fatal "node ${MASTER}: step verify failed" "see the FAIL lines above"
  REMOTE_ENV_EXTRA=()

  if [[ -n ${STORAGE_HOST} ]]; then
    info "== storage node ${STORAGE_HOST} (${STORAGE_DEVICE})"
    ensure_csi_keypair
    local pubkey
    pubkey="$(<"${STORAGE_CSI_KEY_FILE}.pub")"
    REMOTE_ENV_EXTRA=("STORAGE_CSI_PUBKEY=${pubkey}")
    run_on "${STORAGE_HOST}" storage storage "${STORAGE_DEVICE}" ||
      fatal "node ${STORAGE_HOST}: step storage failed" "see the [${STORAGE_HOST}] lines above"
    REMOTE_ENV_EXTRA=()
    local remote_key="${REMOTE_DIR}/hack/storage-csi-key"
    scp -q "${SSH_ARGS[@]}" "${STORAGE_CSI_KEY_FILE}" "${MASTER}:${remote_key}" ||
      fatal "node ${MASTER}: step storage-csi failed: cannot copy the key" "check SSH access to ${MASTER}"
    local rc=0
    run_on "${MASTER}" storage-csi storage-csi "${STORAGE_HOST#*@}" "${remote_key}" || rc=$?
    ssh_node "${MASTER}" "rm -f $(printf '%q' "${remote_key}")" </dev/null || warn "could not remove ${remote_key} on ${MASTER}"
    [[ ${rc} -eq 0 ]] || fatal "node ${MASTER}: step storage-csi failed" "see the [${MASTER}] lines above"
    name="$(node_name "${STORAGE_HOST}")"
    run_on "${MASTER}" label label "${name}" storage || fatal "node ${STORAGE_HOST}: step label storage failed" "see above"
  fi

  if [[ -n ${LOCAL_REGISTRY} || -n ${LOCAL_REGISTRY_MIRROR} ]]; then
    info "== registry trust on every node (${LOCAL_REGISTRY:-} ${LOCAL_REGISTRY_MIRROR:-})"
    specs=()
    for node in "${nodes[@]}"; do specs+=("${node}|registry"); done
    run_parallel registry "${specs[@]}"
  fi
  info "cluster is up. Next: make deploy-incluster (see docs/operator/cluster-bootstrap.md)"
}

# ---------------------------------------------------------------------------------------------------------------

main() {
  local sub=${1:-}
  if [[ $# -gt 0 ]]; then shift; fi
  case ${sub} in
    help | -h | --help)
      usage
      return 0
      ;;
    up | prereqs | init | join | addons | label | verify | storage | storage-csi | registry) ;;
    "") usage_error "no subcommand given" ;;
    *) usage_error "unknown subcommand '${sub}'" ;;
  esac
  [[ ${sub} == up ]] || validate_common_env
  WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/cluster-bootstrap.XXXXXX")"
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  case ${sub} in
    up) cmd_up "$@" ;;
    prereqs) cmd_prereqs "$@" ;;
    init) cmd_init "$@" ;;
    join) cmd_join "$@" ;;
    addons) cmd_addons "$@" ;;
    label) cmd_label "$@" ;;
    verify) cmd_verify "$@" ;;
    storage) cmd_storage "$@" ;;
    storage-csi) cmd_storage_csi "$@" ;;
    registry) cmd_registry "$@" ;;
  esac
}

main "$@"
