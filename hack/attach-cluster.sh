#!/usr/bin/env bash
# Attaches a GPU cluster to a gShare control plane: installs what sessions need into the cluster
# (RuntimeClass nvidia, HAMi, ingress-nginx or Envoy Gateway, optionally democratic-csi) with kubectl apply and
# helm upgrade --install, then registers it through the API, which runs the attach workflow (checks,
# namespace, operator token, cluster-worker), and follows that operation to its end.
#
# Usage: hack/attach-cluster.sh --kubeconfig FILE --name NAME --control-plane URL --session-domain HOST
#                               [--ingress-node NODE] [--storage-values FILE [--skip-nfs-check]] [--skip-ingress]
#                               [--gateway envoy] [--no-wait]
#   --kubeconfig       the cluster to attach (its server: must be reachable from the control plane)
#   --name             the cluster's name in gShare (a DNS label, e.g. lab-c2)
#   --control-plane    the control plane's URL, e.g. https://gshare.example.com
#   --session-domain   the host this cluster's ingress serves sessions on, e.g. gshare.lab-c2.example.com
#   --ingress-node     the node ingress-nginx is bound to (recorded with the cluster)
#   --storage-values   democratic-csi values (see deploy/storage/); installs it as release gshare-storage, after
#                      checking every node has an NFS client, and registers its StorageClass as the cluster's
#                      volume StorageClass (for volumes without a storage pool)
#   --skip-nfs-check   do not check the nodes' NFS client (the check runs kubectl debug node on each node)
#   --skip-ingress     ingress-nginx is already installed
#   --gateway envoy    route sessions through the Gateway API instead of ingress-nginx: installs Envoy Gateway
#                      (ENVOY_GATEWAY_CHART) and the Gateway envoy-gateway-system/gshare, and sets the cluster's
#                      session_routing to gateway-api
#   --no-wait          print the operation and return without following it
# Run it again after a failure at any step: a cluster an earlier run registered is attached again, not refused.
#
# Environment:
#   GSHARE_TOKEN        an admin API token; when unset, hack/bootstrap-superadmin.sh --cluster prints one
#                       (the current kubectl context must then be the control plane's cluster)
#   HAMI_CHART_REPO     ${HAMI_CHART_REPO:-https://project-hami.github.io/HAMi}
#   HAMI_CHART_VERSION  ${HAMI_CHART_VERSION:-2.10.0}
#   INGRESS_NGINX_CHART_REPO  ${INGRESS_NGINX_CHART_REPO:-https://kubernetes.github.io/ingress-nginx}
#   DEMOCRATIC_CSI_CHART_REPO ${DEMOCRATIC_CSI_CHART_REPO:-https://democratic-csi.github.io/charts}
#   ENVOY_GATEWAY_CHART  required by --gateway envoy: the OCI reference of Envoy Gateway's chart (gateway-helm,
#                       as its install guide names it) or of your mirror of it
#   ENVOY_GATEWAY_VERSION ${ENVOY_GATEWAY_VERSION:-v1.10.0}
#   NFS_CHECK_IMAGE     ${NFS_CHECK_IMAGE:-busybox:1.36}, the image kubectl debug node runs for the NFS check
#   ATTACH_WAIT_TRIES   ${ATTACH_WAIT_TRIES:-120} polls of the operation, ATTACH_WAIT_INTERVAL (default 5 s) apart
# Every step is idempotent: run it again after a failure.
set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
HAMI_CHART_REPO="${HAMI_CHART_REPO:-https://project-hami.github.io/HAMi}"
HAMI_CHART_VERSION="${HAMI_CHART_VERSION:-2.10.0}"
INGRESS_NGINX_CHART_REPO="${INGRESS_NGINX_CHART_REPO:-https://kubernetes.github.io/ingress-nginx}"
DEMOCRATIC_CSI_CHART_REPO="${DEMOCRATIC_CSI_CHART_REPO:-https://democratic-csi.github.io/charts}"
ENVOY_GATEWAY_CHART="${ENVOY_GATEWAY_CHART:-}"
ENVOY_GATEWAY_VERSION="${ENVOY_GATEWAY_VERSION:-v1.10.0}"
ATTACH_WAIT_TRIES="${ATTACH_WAIT_TRIES:-120}"
NFS_CHECK_IMAGE="${NFS_CHECK_IMAGE:-busybox:1.36}"
ATTACH_WAIT_INTERVAL="${ATTACH_WAIT_INTERVAL:-5}"

info() { printf 'attach-cluster: %s\n' "$*" >&2; }
fatal() { printf 'attach-cluster: error: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '7,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

usage_error() {
  printf 'attach-cluster: %s\n' "$*" >&2
  usage
  exit 2
}

# json_string VALUE: VALUE as a JSON string literal.
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  s=${s//$'\n'/\\n}
  printf '"%s"' "${s}"
}

# json_field NAME JSON: the string value of the first "NAME":"..." in JSON (enough for our answers).
json_field() {
  printf '%s' "$2" | tr -d '\n' | sed -n "s/.*\"$1\" *: *\"\\([^\"]*\\)\".*/\\1/p" | head -n 1
}

check_kubeconfig() {
  local kubeconfig=$1 server
  server="$(sed -n 's/^[[:space:]]*server:[[:space:]]*//p' "${kubeconfig}" | head -n 1 | tr -d '"'"'")"
  [ -n "${server}" ] || fatal "${kubeconfig} names no server:"
  case "${server}" in
    *://127.*|*://localhost*|*://\[::1\]*)
      fatal "the kubeconfig's server: ${server} is a loopback address; use an address reachable from the control plane (grep server: ${kubeconfig})" ;;
  esac
  info "cluster apiserver ${server}"
}

# storage_class_of FILE: the first storageClasses[].name of democratic-csi values, or nothing.
storage_class_of() {
  awk '
    /^storageClasses:/ { inside = 1; next }
    inside && /^[^[:space:]#-]/ { inside = 0 }
    inside && /name:/ { sub(/.*name:[[:space:]]*/, ""); gsub(/["\047[:space:]]/, ""); print; exit }
  ' "$1"
}

# Sessions mount volumes over NFS: a node without the client leaves session pods in ContainerCreating.
# Each node is asked through kubectl debug node (a short pod with the host's filesystem at /host).
check_nfs_clients() {
  local kubeconfig=$1 node answer missing=""
  local k=(kubectl --kubeconfig "${kubeconfig}")
  for node in $("${k[@]}" get nodes -o 'jsonpath={.items[*].metadata.name}'); do
    answer="$("${k[@]}" debug "node/${node}" --namespace default --image "${NFS_CHECK_IMAGE}" --profile sysadmin --quiet \
      --attach=true -- chroot /host sh -c \
      'if command -v mount.nfs >/dev/null 2>&1 || [ -x /sbin/mount.nfs ] || [ -x /usr/sbin/mount.nfs ]; then echo nfs-client=yes; else echo nfs-client=no; fi' \
      2>/dev/null || true)"
    local debuggers=()
    mapfile -t debuggers < <("${k[@]}" get pods --namespace default -o name 2>/dev/null | grep "node-debugger-${node}-" || true)
    if [ "${#debuggers[@]}" -gt 0 ]; then
      "${k[@]}" delete --namespace default --ignore-not-found --wait=false "${debuggers[@]}" >/dev/null 2>&1 || true
    fi
    case "${answer}" in
      *nfs-client=yes*) info "node ${node}: NFS client present" ;;
      *nfs-client=no*) missing="${missing} ${node}" ;;
      *) missing="${missing} ${node}(unchecked)" ;;
    esac
  done
  if [ -n "${missing}" ]; then
    fatal "no NFS client on:${missing}. Install it on every node (Debian/Ubuntu: apt-get install -y nfs-common; RHEL/Rocky: dnf install -y nfs-utils) and open 2049/tcp (NFSv3 also 111/tcp, 20048/tcp) to the storage server, then run this again; nodes marked (unchecked) could not be asked (kubectl debug node), and --skip-nfs-check skips the check"
  fi
}

install_runtime() {
  local kubeconfig=$1 skip_ingress=$2 storage_values=$3 gateway=${4:-}
  local k=(kubectl --kubeconfig "${kubeconfig}")
  local h=(helm --kubeconfig "${kubeconfig}")
  info "RuntimeClass nvidia"
  "${k[@]}" apply --server-side --field-manager=gshare-attach -f "${REPO_ROOT}/deploy/addons/runtimeclass-nvidia.yaml"

  local version
  version="$("${k[@]}" version -o json | sed -n 's/.*"gitVersion": *"\(v[0-9][^"+-]*\).*/\1/p' | tail -n 1)"
  [ -n "${version}" ] || fatal "could not read the cluster's Kubernetes version (kubectl version)"
  info "HAMi ${HAMI_CHART_VERSION}, scheduler image pinned to ${version}"
  "${h[@]}" repo add hami-charts "${HAMI_CHART_REPO}" --force-update >/dev/null
  "${h[@]}" upgrade --install hami hami-charts/hami --namespace kube-system --version "${HAMI_CHART_VERSION}" \
    -f "${REPO_ROOT}/deploy/addons/hami-values.yaml" --set "scheduler.kubeScheduler.imageTag=${version}" --wait

  if [ "${gateway}" = envoy ]; then
    info "Envoy Gateway ${ENVOY_GATEWAY_VERSION} (Backend API on, for the sessions' external auth) and the Gateway envoy-gateway-system/gshare"
    "${h[@]}" upgrade --install eg "${ENVOY_GATEWAY_CHART}" --version "${ENVOY_GATEWAY_VERSION}" \
      --namespace envoy-gateway-system --create-namespace \
      --set config.envoyGateway.extensionApis.enableBackend=true --wait
    "${k[@]}" apply --server-side --field-manager=gshare-attach -f "${REPO_ROOT}/deploy/addons/envoy-gateway.yaml"
  elif [ "${skip_ingress}" = 1 ]; then
    info "ingress-nginx: skipped (--skip-ingress)"
  else
    info "ingress-nginx (NodePort 30080/30443)"
    "${h[@]}" repo add ingress-nginx "${INGRESS_NGINX_CHART_REPO}" --force-update >/dev/null
    "${h[@]}" upgrade --install ingress-nginx ingress-nginx/ingress-nginx --namespace ingress-nginx --create-namespace \
      -f "${REPO_ROOT}/deploy/addons/ingress-nginx-values.yaml" --wait
  fi

  label_gpu_nodes "${kubeconfig}"

  if [ -n "${storage_values}" ]; then
    info "democratic-csi (StorageClass $(storage_class_of "${storage_values}"))"
    "${h[@]}" repo add democratic-csi "${DEMOCRATIC_CSI_CHART_REPO}" --force-update >/dev/null
    "${h[@]}" upgrade --install gshare-storage democratic-csi/democratic-csi --namespace gshare-storage \
      --create-namespace -f "${storage_values}"
  fi
}

# HAMi sees GPUs on nodes labelled gpu=on; gShare schedules by gshare.io/gpu-mode. Nodes that already
# carry a GPU mode get gpu=on; nodes without one are named so the operator labels them.
label_gpu_nodes() {
  local kubeconfig=$1 node mode unlabelled=""
  while read -r node mode; do
    [ -n "${node}" ] || continue
    case "${mode}" in
      exclusive|fractional)
        kubectl --kubeconfig "${kubeconfig}" label node "${node}" gpu=on --overwrite >/dev/null ;;
      cpu|storage) ;;
      *) unlabelled="${unlabelled} ${node}" ;;
    esac
  done < <(kubectl --kubeconfig "${kubeconfig}" get nodes \
    -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.gshare\.io/gpu-mode}{"\n"}{end}')
  if [ -n "${unlabelled}" ]; then
    info "warning: nodes without gshare.io/gpu-mode:${unlabelled} (hack/cluster-bootstrap.sh label <node> exclusive|fractional|cpu)"
  fi
}

api() {
  local method=$1 url=$2 body=${3:-}
  local args=(-sS -X "${method}" -H "Authorization: Bearer ${GSHARE_TOKEN}" -w '\n%{http_code}')
  if [ -n "${body}" ]; then
    args+=(-H 'Content-Type: application/json' --data-binary @-)
  fi
  printf '%s' "${body}" | curl "${args[@]}" "${url}"
}

register() {
  local control_plane=$1 name=$2 kubeconfig=$3 domain=$4 ingress_node=$5 storage_class=${6:-}
  local body answer status
  body="{\"name\":$(json_string "${name}"),\"kubeconfig\":$(json_string "$(cat "${kubeconfig}")"),\"session_domain\":$(json_string "${domain}")"
  if [ -n "${ingress_node}" ]; then
    body="${body},\"ingress_node\":$(json_string "${ingress_node}")"
  fi
  if [ -n "${storage_class}" ]; then
    body="${body},\"storage\":{\"volume_storage_class\":$(json_string "${storage_class}")}"
  fi
  body="${body}}"
  answer="$(api POST "${control_plane}/api/v1/clusters" "${body}")"
  status="${answer##*$'\n'}"
  answer="${answer%$'\n'*}"
  if [ "${status}" = 409 ]; then
    # Registered by an earlier run: attach that cluster again (converges whatever step the last run reached).
    local existing
    existing="$(json_field cluster_id "${answer}")"
    [ -n "${existing}" ] \
      || fatal "the control plane refused the registration (409): $(json_field detail "${answer}"); to attach an existing cluster again: POST ${control_plane}/api/v1/clusters/<id>/attach"
    info "${name} is already registered as ${existing}: attaching it again"
    answer="$(api POST "${control_plane}/api/v1/clusters/${existing}/attach" "{}")"
    status="${answer##*$'\n'}"
    answer="${answer%$'\n'*}"
    if [ "${status}" = 409 ]; then
      info "an attach of ${existing} is already running: following it"
      printf '{"cluster":{"id":"%s"},"operation":{"id":"cluster-attach-%s"}}' "${existing}" "${existing}"
      return 0
    fi
  fi
  [ "${status}" = 202 ] || fatal "the control plane answered ${status}: $(json_field detail "${answer}")"
  printf '%s' "${answer}"
}

follow() {
  local control_plane=$1 operation=$2 tries=0 answer status state
  while [ "${tries}" -lt "${ATTACH_WAIT_TRIES}" ]; do
    answer="$(api GET "${control_plane}/api/v1/operations/${operation}")"
    status="${answer##*$'\n'}"
    answer="${answer%$'\n'*}"
    [ "${status}" = 200 ] || fatal "could not read operation ${operation} (${status})"
    state="$(json_field status "${answer}")"
    case "${state}" in
      completed) info "attached: ${operation} completed"; return 0 ;;
      failed) fatal "attach failed: $(json_field error "${answer}")" ;;
      *) info "attaching... next step: $(json_field next_step "${answer}")" ;;
    esac
    tries=$((tries + 1))
    sleep "${ATTACH_WAIT_INTERVAL}"
  done
  fatal "the attach did not finish in time; follow it with GET ${control_plane}/api/v1/operations/${operation}"
}

main() {
  local kubeconfig="" name="" control_plane="" domain="" ingress_node="" storage_values="" skip_ingress=0 wait=1
  local gateway=""
  local nfs_check=1 storage_class=""
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --kubeconfig|--name|--control-plane|--session-domain|--ingress-node|--storage-values|--gateway)
        if [ "$#" -lt 2 ] || [ -z "$2" ]; then
          usage_error "$1 needs a value"
        fi
        case "$1" in
          --kubeconfig) kubeconfig=$2 ;;
          --name) name=$2 ;;
          --control-plane) control_plane=${2%/} ;;
          --session-domain) domain=$2 ;;
          --ingress-node) ingress_node=$2 ;;
          --storage-values) storage_values=$2 ;;
          --gateway) gateway=$2 ;;
        esac
        shift ;;
      --skip-ingress) skip_ingress=1 ;;
      --skip-nfs-check) nfs_check=0 ;;
      --no-wait) wait=0 ;;
      -h|--help) usage; return 0 ;;
      *) usage_error "unknown argument: $1" ;;
    esac
    shift
  done
  [ -n "${kubeconfig}" ] || usage_error "--kubeconfig is required"
  [ -n "${name}" ] || usage_error "--name is required"
  [ -n "${control_plane}" ] || usage_error "--control-plane is required"
  [ -n "${domain}" ] || usage_error "--session-domain is required (sessions are served on it)"
  [ -f "${kubeconfig}" ] || usage_error "--kubeconfig ${kubeconfig} is not a file"
  [[ "${name}" =~ ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$ ]] || usage_error "--name must be a DNS label, e.g. lab-c2"
  [[ "${control_plane}" =~ ^https?:// ]] || usage_error "--control-plane must be an http(s) URL"
  if [ -n "${gateway}" ]; then
    [ "${gateway}" = envoy ] || usage_error "--gateway takes envoy (Envoy Gateway), not ${gateway}"
    [ "${skip_ingress}" = 0 ] || usage_error "--gateway envoy installs no ingress-nginx: drop --skip-ingress"
    [ -n "${ENVOY_GATEWAY_CHART}" ] \
      || fatal "--gateway envoy needs ENVOY_GATEWAY_CHART: the OCI reference of Envoy Gateway's chart (gateway-helm) as its install guide names it, or your mirror of it"
  fi
  if [ -n "${storage_values}" ]; then
    [ -f "${storage_values}" ] || usage_error "--storage-values ${storage_values} is not a file"
    storage_class="$(storage_class_of "${storage_values}")"
    [ -n "${storage_class}" ] || usage_error "--storage-values ${storage_values} names no StorageClass (storageClasses[].name)"
  fi
  local tool
  for tool in kubectl helm curl; do
    command -v "${tool}" >/dev/null 2>&1 || fatal "${tool} is not on PATH (hack/tools.sh installs kubectl and helm into .tools/bin)"
  done

  check_kubeconfig "${kubeconfig}"
  if [ -z "${GSHARE_TOKEN:-}" ]; then
    info "GSHARE_TOKEN is not set: asking the control plane (current kubectl context) for a super admin token"
    GSHARE_TOKEN="$("${REPO_ROOT}/hack/bootstrap-superadmin.sh" --cluster)"
  fi
  if [ -n "${storage_values}" ] && [ "${nfs_check}" = 1 ]; then
    check_nfs_clients "${kubeconfig}"
  fi
  install_runtime "${kubeconfig}" "${skip_ingress}" "${storage_values}" "${gateway}"

  local answer cluster operation
  answer="$(register "${control_plane}" "${name}" "${kubeconfig}" "${domain}" "${ingress_node}" "${storage_class}")"
  cluster="$(printf '%s' "${answer}" | tr -d '\n' | sed -n 's/.*"cluster" *: *{ *"id" *: *"\([^"]*\)".*/\1/p')"
  operation="$(printf '%s' "${answer}" | tr -d '\n' | sed -n 's/.*"operation" *: *{ *"id" *: *"\([^"]*\)".*/\1/p')"
  info "registered ${name} as ${cluster}; operation ${operation}"
  if [ "${gateway}" = envoy ]; then
    local routed
    routed="$(api PATCH "${control_plane}/api/v1/clusters/${cluster}" \
      '{"session_routing":"gateway-api","session_gateway":"envoy-gateway-system/gshare"}')"
    [ "${routed##*$'\n'}" = 200 ] \
      || fatal "could not set ${cluster}'s session routing to gateway-api (${routed##*$'\n'}): $(json_field detail "${routed%$'\n'*}")"
    info "sessions of ${name} route through the Gateway envoy-gateway-system/gshare"
  fi
  printf '%s\n' "${cluster}"
  if [ "${wait}" = 1 ]; then
    follow "${control_plane}" "${operation}"
  fi
}

main "$@"
