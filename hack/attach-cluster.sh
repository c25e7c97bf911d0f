#!/usr/bin/env bash
# Attaches a GPU cluster to a gShare control plane. It checks the cluster first (its apiserver address, on every
# GPU node the NVIDIA driver, the container toolkit and containerd's nvidia runtime, and from a pod that the control
# plane's Temporal gateway answers gRPC there), installs what sessions need (RuntimeClass nvidia, the GPU node
# labels, HAMi, ingress-nginx or Envoy Gateway, optionally democratic-csi) with kubectl apply and helm upgrade
# --install, waits until HAMi publishes every GPU node's capacity, then registers the cluster through the API, which
# runs the attach workflow (checks, namespace, operator token, cluster-worker), and follows that operation to its end.
#
# Usage: hack/attach-cluster.sh --kubeconfig FILE --name NAME --control-plane URL --session-domain HOST
#                               [--ingress-node NODE] [--gpu-nodes NODE,...] [--gpu-mode exclusive|fractional]
#                               [--skip-node-checks] [--storage-values FILE [--skip-nfs-check]] [--skip-ingress]
#                               [--gateway envoy] [--temporal-address HOST:PORT] [--skip-temporal-check] [--no-wait]
#   --kubeconfig       the cluster to attach; the server: of its current context must not be a loopback address
#                      and must answer (from here, and from the control plane: open 6443/tcp to it)
#   --name             the cluster's name in gShare (a DNS label, e.g. lab-c2)
#   --control-plane    the control plane's URL, e.g. https://gshare.example.com
#   --session-domain   the host this cluster's ingress serves sessions on, e.g. gshare.lab-c2.example.com; its DNS
#                      must resolve to --ingress-node (or to a front proxy forwarding to it)
#   --ingress-node     the node the session domain points at (recorded with the cluster): it must be a node of the
#                      cluster and run an ingress-nginx controller; the ingress-nginx this script installs is
#                      pinned to it (controller.nodeSelector kubernetes.io/hostname, tolerating the node's taints)
#   --gpu-nodes        the GPU nodes, comma separated; by default the nodes labelled gpu=on,
#                      nvidia.com/gpu.present=true or gshare.io/gpu-mode=exclusive|fractional, or with
#                      nvidia.com/gpu capacity (never a node whose gshare.io/gpu-mode is cpu or storage)
#   --gpu-mode         the gshare.io/gpu-mode GPU nodes without one get (default fractional); a mode already set
#                      is never changed
#   --skip-node-checks do not check the GPU nodes (nvidia-smi, nvidia-ctk --version, containerd's nvidia runtime;
#                      the check runs kubectl debug node on each GPU node)
#   --storage-values   democratic-csi values (see deploy/storage/); installs it as release gshare-storage, after
#                      checking every node has an NFS client, and registers its StorageClass as the cluster's
#                      volume StorageClass (for volumes without a storage pool)
#   --skip-nfs-check   do not check the nodes' NFS client (the check runs kubectl debug node on each node)
#   --skip-ingress     do not install ingress-nginx (one is installed already; an ingress-nginx this script did
#                      not install is detected and left alone anyway)
#   --gateway envoy    route sessions through the Gateway API instead of ingress-nginx: installs Envoy Gateway
#                      (ENVOY_GATEWAY_CHART) and the Gateway envoy-gateway-system/gshare, and sets the cluster's
#                      session_routing to gateway-api
#   --temporal-address the control plane's Temporal gateway as this cluster's worker will reach it (the chart's
#                      GSHARE_CLUSTERWORKER_TEMPORALADDRESS), HOST:PORT; default: the --control-plane host on 443
#                      (https) or 80 (http). Checked from a pod in the cluster before anything is installed: a gRPC
#                      call over HTTP/2, with TLS on port 443 and plaintext (h2c) on any other, must get a
#                      grpc-status back (16 UNAUTHENTICATED, as it carries no token)
#   --skip-temporal-check do not check it (a control plane with temporalGateway.enabled=false, whose workers dial
#                      Temporal themselves)
#   --no-wait          print the operation and return without following it
# Run it again after a failure at any step: every step converges (apply, upgrade --install, labels only added
# where missing), and a cluster an earlier run registered is attached again, not refused.
#
# Environment:
#   GSHARE_TOKEN        an admin API token; when unset, hack/bootstrap-superadmin.sh --cluster prints one
#                       (the current kubectl context must then be the control plane's cluster)
#   HAMI_CHART_REPO     ${HAMI_CHART_REPO:-https://project-hami.github.io/HAMi}
#   HAMI_CHART_VERSION  ${HAMI_CHART_VERSION:-2.10.0}
#   HAMI_WAIT_TRIES     ${HAMI_WAIT_TRIES:-60} polls for the GPU nodes' nvidia.com/gpu and nvidia.com/gpumem,
#                       HAMI_WAIT_INTERVAL (default 5 s) apart
#   INGRESS_NGINX_CHART_REPO  ${INGRESS_NGINX_CHART_REPO:-https://kubernetes.github.io/ingress-nginx}
#   DEMOCRATIC_CSI_CHART_REPO ${DEMOCRATIC_CSI_CHART_REPO:-https://democratic-csi.github.io/charts}
#   ENVOY_GATEWAY_CHART  required by --gateway envoy: the OCI reference of Envoy Gateway's chart (gateway-helm,
#                       as its install guide names it) or of your mirror of it
#   ENVOY_GATEWAY_VERSION ${ENVOY_GATEWAY_VERSION:-v1.10.0}
#   NFS_CHECK_IMAGE     ${NFS_CHECK_IMAGE:-busybox:1.36}, the image kubectl debug node runs for the NFS check
#   NODE_CHECK_IMAGE    ${NODE_CHECK_IMAGE:-$NFS_CHECK_IMAGE}, the image it runs for the GPU node checks
#   TEMPORAL_CHECK_IMAGE ${TEMPORAL_CHECK_IMAGE:-curlimages/curl:8.11.1}, the image of the Temporal gateway check's
#                       pod (any curl with HTTP/2)
#   ATTACH_WAIT_TRIES   ${ATTACH_WAIT_TRIES:-120} polls of the operation, ATTACH_WAIT_INTERVAL (default 5 s) apart
set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
HAMI_CHART_REPO="${HAMI_CHART_REPO:-https://project-hami.github.io/HAMi}"
HAMI_CHART_VERSION="${HAMI_CHART_VERSION:-2.10.0}"
HAMI_WAIT_TRIES="${HAMI_WAIT_TRIES:-60}"
HAMI_WAIT_INTERVAL="${HAMI_WAIT_INTERVAL:-5}"
INGRESS_NGINX_CHART_REPO="${INGRESS_NGINX_CHART_REPO:-https://kubernetes.github.io/ingress-nginx}"
DEMOCRATIC_CSI_CHART_REPO="${DEMOCRATIC_CSI_CHART_REPO:-https://democratic-csi.github.io/charts}"
ENVOY_GATEWAY_CHART="${ENVOY_GATEWAY_CHART:-}"
ENVOY_GATEWAY_VERSION="${ENVOY_GATEWAY_VERSION:-v1.10.0}"
ATTACH_WAIT_TRIES="${ATTACH_WAIT_TRIES:-120}"
NFS_CHECK_IMAGE="${NFS_CHECK_IMAGE:-busybox:1.36}"
NODE_CHECK_IMAGE="${NODE_CHECK_IMAGE:-${NFS_CHECK_IMAGE}}"
TEMPORAL_CHECK_IMAGE="${TEMPORAL_CHECK_IMAGE:-curlimages/curl:8.11.1}"
ATTACH_WAIT_INTERVAL="${ATTACH_WAIT_INTERVAL:-5}"

# The cluster's nodes, one a line: name|gpu label|gshare.io/gpu-mode|nvidia.com/gpu.present|nvidia.com/gpu
# capacity|kubernetes.io/hostname|taints (key:effect ...)|addresses (type=address ...). Read once by read_nodes.
NODE_TABLE=""
NODE_JSONPATH='{range .items[*]}{.metadata.name}|{.metadata.labels.gpu}|{.metadata.labels.gshare\.io/gpu-mode}|{.metadata.labels.nvidia\.com/gpu\.present}|{.status.capacity.nvidia\.com/gpu}|{.metadata.labels.kubernetes\.io/hostname}|{range .spec.taints[*]}{.key}:{.effect} {end}|{range .status.addresses[*]}{.type}={.address} {end}{"\n"}{end}'
# The GPU nodes this run checks, labels and waits for (select_gpu_nodes).
GPU_NODES=()

info() { printf 'attach-cluster: %s\n' "$*" >&2; }
fatal() { printf 'attach-cluster: error: %s\n' "$*" >&2; exit 1; }

usage() {
  # The header from "# Usage:" to the first empty comment line.
  sed -n '/^# Usage:/,/^#$/{/^#$/d;p;}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
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

# url_host URL: the host of scheme://[user@]host[:port][/path], lower case, an IPv6 address without brackets.
url_host() {
  local rest=${1#*://}
  rest=${rest%%/*}
  rest=${rest##*@}
  case "${rest}" in
    \[*) rest=${rest#\[}; rest=${rest%%\]*} ;;
    *) rest=${rest%%:*} ;;
  esac
  printf '%s' "${rest}" | tr '[:upper:]' '[:lower:]'
}

# is_loopback HOST: HOST is a loopback (127.0.0.0/8, ::1, localhost) or unspecified (0.0.0.0, ::) address.
is_loopback() {
  local host=${1%.}
  [[ "${host}" =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+$ ]] && return 0
  [[ "${host}" =~ ^::ffff:127\. ]] && return 0
  case "${host}" in
    localhost|localhost.localdomain|*.localhost|::1|0:0:0:0:0:0:0:1|0.0.0.0|::) return 0 ;;
  esac
  return 1
}

# The guide's "Kubeconfig 엔드포인트 검증": the server: of the current context is an address the control plane can
# reach (not loopback), and it answers.
check_kubeconfig() {
  local kubeconfig=$1 server host err
  local k=(kubectl --kubeconfig "${kubeconfig}")
  server="$("${k[@]}" config view --minify -o 'jsonpath={.clusters[0].cluster.server}' 2>/dev/null)" \
    || fatal "${kubeconfig} has no usable current context (kubectl --kubeconfig ${kubeconfig} config view --minify fails); choose one: kubectl --kubeconfig ${kubeconfig} config use-context NAME"
  [ -n "${server}" ] || fatal "the current context of ${kubeconfig} names no server: (grep server: ${kubeconfig})"
  host="$(url_host "${server}")"
  if is_loopback "${host}"; then
    fatal "the kubeconfig's server: ${server} is a loopback address, which a control plane elsewhere cannot reach; use an address reachable from the control plane: the node's LAN/WAN IP or DNS name (covered by the apiserver's certificate) in server: (grep server: ${kubeconfig}), and open 6443/tcp from the control plane"
  fi
  info "cluster apiserver ${server}"
  if ! err="$("${k[@]}" get --raw /readyz --request-timeout=10s 2>&1 >/dev/null)"; then
    fatal "the apiserver ${server} does not answer (kubectl get --raw /readyz: ${err##*$'\n'}); the control plane must reach it too: put the node's address reachable from the control plane (LAN/WAN IP or DNS name, not a NAT-internal one) in server: (grep server: ${kubeconfig}), open 6443/tcp from the control plane, and check that the apiserver runs"
  fi
  info "cluster apiserver answers /readyz"
}

# read_nodes KUBECONFIG: fills NODE_TABLE.
read_nodes() {
  NODE_TABLE="$(kubectl --kubeconfig "$1" get nodes -o "jsonpath=${NODE_JSONPATH}")" \
    || fatal "could not list the cluster's nodes (kubectl --kubeconfig $1 get nodes)"
  [ -n "${NODE_TABLE}" ] || fatal "the cluster has no nodes (kubectl --kubeconfig $1 get nodes)"
}

# node_field NODE N: field N (1-based, see NODE_TABLE) of NODE, or nothing.
node_field() {
  awk -F'|' -v node="$1" -v n="$2" '$1 == node { print $n; exit }' <<<"${NODE_TABLE}"
}

node_exists() {
  awk -F'|' -v node="$1" '$1 == node { found = 1 } END { exit !found }' <<<"${NODE_TABLE}"
}

node_names() {
  cut -d'|' -f1 <<<"${NODE_TABLE}" | tr '\n' ' ' | sed 's/ *$//'
}

is_gpu_node() {
  local node
  for node in "${GPU_NODES[@]}"; do
    [ "${node}" = "$1" ] && return 0
  done
  return 1
}

# select_gpu_nodes KUBECONFIG EXPLICIT: fills GPU_NODES with the nodes named in EXPLICIT (comma separated) or,
# when it is empty, with the nodes that look like GPU nodes. A node whose gshare.io/gpu-mode is cpu or storage is
# never one: this script does not change a mode.
select_gpu_nodes() {
  local kubeconfig=$1 explicit=$2 name gpu mode present capacity
  GPU_NODES=()
  if [ -n "${explicit}" ]; then
    local wanted=() unknown="" other=""
    IFS=, read -r -a wanted <<<"${explicit}"
    for name in "${wanted[@]}"; do
      [ -n "${name}" ] || continue
      if ! node_exists "${name}"; then
        unknown="${unknown} ${name}"
        continue
      fi
      mode="$(node_field "${name}" 3)"
      case "${mode}" in
        cpu|storage) other="${other} ${name}(gshare.io/gpu-mode=${mode})"; continue ;;
      esac
      is_gpu_node "${name}" || GPU_NODES+=("${name}")
    done
    [ -z "${unknown}" ] || fatal "--gpu-nodes names nodes the cluster does not have:${unknown} (its nodes: $(node_names))"
    [ -z "${other}" ] \
      || fatal "--gpu-nodes names nodes labelled as non-GPU nodes:${other}; this script never changes a gshare.io/gpu-mode: relabel them first (kubectl --kubeconfig ${kubeconfig} label node NODE gshare.io/gpu-mode=exclusive|fractional --overwrite)"
  else
    while IFS='|' read -r name gpu mode present capacity _; do
      [ -n "${name}" ] || continue
      case "${mode}" in
        cpu|storage) continue ;;
        exclusive|fractional) GPU_NODES+=("${name}"); continue ;;
      esac
      if [ "${gpu}" = on ] || [ "${present}" = true ] || { [[ "${capacity}" =~ ^[0-9]+$ ]] && [ "${capacity}" -gt 0 ]; }; then
        GPU_NODES+=("${name}")
      fi
    done <<<"${NODE_TABLE}"
  fi
  [ "${#GPU_NODES[@]}" -gt 0 ] \
    || fatal "found no GPU node among $(node_names): no node is labelled gpu=on, nvidia.com/gpu.present=true or gshare.io/gpu-mode=exclusive|fractional, or has nvidia.com/gpu capacity; name the GPU nodes with --gpu-nodes NODE,..."
  info "GPU nodes: ${GPU_NODES[*]}"
}

# storage_class_of FILE: the first storageClasses[].name of democratic-csi values, or nothing.
storage_class_of() {
  awk '
    /^storageClasses:/ { inside = 1; next }
    inside && /^[^[:space:]#-]/ { inside = 0 }
    inside && /name:/ { sub(/.*name:[[:space:]]*/, ""); gsub(/["\047[:space:]]/, ""); print; exit }
  ' "$1"
}

# probe_node KUBECONFIG NODE IMAGE SCRIPT: what SCRIPT prints when sh runs it in the node's root filesystem (kubectl
# debug node: a short privileged pod with the host's filesystem at /host, deleted afterwards), or nothing when the
# node could not be asked.
probe_node() {
  local kubeconfig=$1 node=$2 image=$3 script=$4 answer
  local k=(kubectl --kubeconfig "${kubeconfig}")
  answer="$("${k[@]}" debug "node/${node}" --namespace default --image "${image}" --profile sysadmin --quiet \
    --attach=true -- chroot /host sh -c "${script}" 2>/dev/null || true)"
  local debuggers=()
  mapfile -t debuggers < <("${k[@]}" get pods --namespace default -o name 2>/dev/null | grep "node-debugger-${node}-" || true)
  if [ "${#debuggers[@]}" -gt 0 ]; then
    "${k[@]}" delete --namespace default --ignore-not-found --wait=false "${debuggers[@]}" >/dev/null 2>&1 || true
  fi
  printf '%s\n' "${answer}"
}

# default_temporal_address URL: the host of the control plane's URL on 443 (https) or 80 (http), what the chart
# gives the workers once the internal plane is open on that host.
default_temporal_address() {
  local host
  host="$(url_host "$1")"
  if [[ ${host} == *:* ]]; then host="[${host}]"; fi
  case "$1" in
    https://*) printf '%s:443' "${host}" ;;
    *) printf '%s:80' "${host}" ;;
  esac
}

# valid_temporal_address ADDRESS: HOST:PORT, HOST a DNS name, an IPv4 address or a bracketed IPv6 one, PORT 1-65535.
valid_temporal_address() {
  local re='^([A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})$'
  [[ $1 =~ ${re} ]] && [ "${BASH_REMATCH[3]}" -ge 1 ] && [ "${BASH_REMATCH[3]}" -le 65535 ]
}

# check_temporal_gateway KUBECONFIG ADDRESS: the worker reaches Temporal only through the control plane's Temporal
# gateway, so a pod in the cluster makes a gRPC call there as the worker will: HTTP/2 with TLS on port 443 (the
# internal plane's ingress; ingress-nginx speaks HTTP/2 only with TLS), plaintext h2c on any other port. Any
# grpc-status proves gRPC reaches the gateway; without a token it is 16 (UNAUTHENTICATED).
check_temporal_gateway() {
  local kubeconfig=$1 address=$2 pod=gshare-temporal-check url answer code detail err
  local k=(kubectl --kubeconfig "${kubeconfig}" --namespace default)
  local http2=(--http2)
  if [ "${address##*:}" = 443 ]; then
    url="https://${address}/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo"
  else
    url="http://${address}/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo"
    http2=(--http2-prior-knowledge)
  fi
  # A pod an interrupted run left behind would make the name taken.
  "${k[@]}" delete pod "${pod}" --ignore-not-found >/dev/null 2>&1 || true
  answer="$("${k[@]}" run "${pod}" --image "${TEMPORAL_CHECK_IMAGE}" --restart=Never --rm --attach --quiet \
    --pod-running-timeout=2m --command -- curl -sS -o /dev/null -D - -w 'http_code=%{http_code}\n' --max-time 15 \
    "${http2[@]}" -H 'content-type: application/grpc' -H 'te: trailers' --data-binary '' "${url}" 2>&1 || true)"
  "${k[@]}" delete pod "${pod}" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  answer="$(tr -d '\r' <<<"${answer}")"
  code="$(grep -i -m 1 '^grpc-status:' <<<"${answer}" | sed 's/^[^:]*: *//' || true)"
  if [ -n "${code}" ]; then
    info "the Temporal gateway ${address} answers gRPC from inside the cluster (grpc-status ${code})"
    return 0
  fi
  code="$(sed -n 's/^http_code=//p' <<<"${answer}" | tail -n 1)"
  case "${code}" in
    ""|000)
      err="$(grep -m 1 '^curl: ' <<<"${answer}" || grep -v '^http_code=' <<<"${answer}" | grep . | tail -n 1 || true)"
      detail="no answer: ${err:-the check pod printed nothing} (the check runs ${TEMPORAL_CHECK_IMAGE} as pod default/${pod}, TEMPORAL_CHECK_IMAGE)" ;;
    403) detail="HTTP 403: ingress.internalPlane.sourceRange does not take this cluster's address, or the internal plane is closed on that host" ;;
    404) detail="HTTP 404: nothing routes the WorkflowService path there (no Ingress gshare-temporal-gateway)" ;;
    502|503|504) detail="HTTP ${code}: nothing serves the gateway behind the ingress (temporalGateway.enabled off on the api?)" ;;
    *) detail="HTTP ${code} without a grpc-status: not the gateway's gRPC" ;;
  esac
  fatal "the control plane's Temporal gateway ${address} does not answer gRPC from inside the cluster (${detail}); the cluster-worker reaches Temporal only through it. Open it on the control plane: helm upgrade gshare charts/gshare -n gshare-system --reuse-values --set temporalGateway.enabled=true --set ingress.internalPlane.enabled=true --set ingress.internalPlane.sourceRange=CIDRS (CIDRS taking this cluster's outgoing addresses), so that ingress-nginx passes gRPC to it: the Ingress gshare-temporal-gateway (backend-protocol GRPC) on the internal-plane host, over TLS on 443 (ingress.scheme https: ingress-nginx speaks HTTP/2 only with TLS); and open 443/tcp from this cluster to that host. Workers reaching it elsewhere: --temporal-address HOST:PORT; a control plane with temporalGateway.enabled=false (workers dial Temporal with their gshare-temporal-client Secret): --skip-temporal-check"
}

# Sessions mount volumes over NFS: a node without the client leaves session pods in ContainerCreating.
check_nfs_clients() {
  local kubeconfig=$1 node answer missing=""
  for node in $(kubectl --kubeconfig "${kubeconfig}" get nodes -o 'jsonpath={.items[*].metadata.name}'); do
    answer="$(probe_node "${kubeconfig}" "${node}" "${NFS_CHECK_IMAGE}" \
      'if command -v mount.nfs >/dev/null 2>&1 || [ -x /sbin/mount.nfs ] || [ -x /usr/sbin/mount.nfs ]; then echo nfs-client=yes; else echo nfs-client=no; fi')"
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

# The guide's "신규 데이터 플레인 노드 구성", on every GPU node: nvidia-smi (the driver), nvidia-ctk --version (the
# container toolkit), and containerd's nvidia runtime (containerd config dump, drop-ins included, or its config
# files name nvidia-container-runtime). Every failure of every node is printed before the attach stops.
GPU_PROBE='PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
if nvidia-smi >/dev/null 2>&1; then echo nvidia-smi=yes; else echo nvidia-smi=no; fi
if nvidia-ctk --version >/dev/null 2>&1; then echo nvidia-ctk=yes; else echo nvidia-ctk=no; fi
if containerd config dump 2>/dev/null | grep -q nvidia-container-runtime || grep -rqs nvidia-container-runtime /etc/containerd /var/lib/rancher/k3s/agent/etc/containerd /var/lib/rancher/rke2/agent/etc/containerd; then echo nvidia-runtime=yes; else echo nvidia-runtime=no; fi'

check_gpu_nodes() {
  local kubeconfig=$1 node answer failed_nodes="" problems=0 ok
  for node in "${GPU_NODES[@]}"; do
    answer="$(probe_node "${kubeconfig}" "${node}" "${NODE_CHECK_IMAGE}" "${GPU_PROBE}")"
    case "${answer}" in
      *nvidia-smi=*) ;;
      *)
        info "node ${node}: could not be checked (kubectl --kubeconfig ${kubeconfig} debug node/${node} --profile sysadmin --image ${NODE_CHECK_IMAGE} gave no answer: may this account create privileged pods in namespace default, and can the node pull the image?)"
        failed_nodes="${failed_nodes} ${node}"
        problems=$((problems + 1))
        continue ;;
    esac
    ok=1
    if [[ "${answer}" == *nvidia-smi=no* ]]; then
      info "node ${node}: nvidia-smi fails (no working NVIDIA driver): on ${node} run sudo ./hack/cluster-bootstrap.sh prereqs --gpu, then reboot it"
      ok=0
      problems=$((problems + 1))
    fi
    if [[ "${answer}" == *nvidia-ctk=no* ]]; then
      info "node ${node}: nvidia-ctk --version fails (no NVIDIA container toolkit): on ${node} run sudo ./hack/cluster-bootstrap.sh prereqs --gpu"
      ok=0
      problems=$((problems + 1))
    fi
    if [[ "${answer}" == *nvidia-runtime=no* ]]; then
      info "node ${node}: containerd has no nvidia runtime (containerd config dump | grep nvidia-container-runtime finds nothing): on ${node} run sudo nvidia-ctk runtime configure --runtime=containerd && sudo systemctl restart containerd (prereqs --gpu does it too)"
      ok=0
      problems=$((problems + 1))
    fi
    if [ "${ok}" = 1 ]; then
      info "node ${node}: nvidia-smi, nvidia-ctk and containerd's nvidia runtime work"
    else
      failed_nodes="${failed_nodes} ${node}"
    fi
  done
  if [ -n "${failed_nodes}" ]; then
    fatal "GPU node checks failed on:${failed_nodes} (${problems} problem(s), each named above with its fix); fix them and run this again, or skip the checks with --skip-node-checks"
  fi
}

# HAMi serves the nodes labelled gpu=on; gShare schedules by gshare.io/gpu-mode. Each GPU node gets gpu=on, and
# gshare.io/gpu-mode=GPU_MODE when it has no mode yet: a mode already set is never overwritten (kubectl label without
# --overwrite refuses to, should one appear meanwhile). Nodes that are right are left alone.
label_gpu_nodes() {
  local kubeconfig=$1 gpu_mode=$2 node gpu mode done_ unlabelled=""
  local k=(kubectl --kubeconfig "${kubeconfig}")
  for node in "${GPU_NODES[@]}"; do
    gpu="$(node_field "${node}" 2)"
    mode="$(node_field "${node}" 3)"
    if [ "${gpu}" = on ]; then
      done_="gpu=on already"
    elif [ -z "${gpu}" ]; then
      "${k[@]}" label node "${node}" gpu=on >/dev/null \
        || fatal "could not label node ${node} gpu=on (kubectl label above)"
      done_="labelled gpu=on"
    else
      "${k[@]}" label node "${node}" gpu=on --overwrite >/dev/null \
        || fatal "could not label node ${node} gpu=on (kubectl label above)"
      done_="gpu=${gpu} changed to gpu=on (HAMi serves only nodes labelled gpu=on)"
    fi
    if [ -z "${mode}" ]; then
      "${k[@]}" label node "${node}" "gshare.io/gpu-mode=${gpu_mode}" >/dev/null \
        || fatal "could not label node ${node} gshare.io/gpu-mode=${gpu_mode} (kubectl label above; a mode set meanwhile is kept: run this again)"
      done_="${done_}, labelled gshare.io/gpu-mode=${gpu_mode}"
    elif [ "${mode}" = "${gpu_mode}" ]; then
      done_="${done_}, gshare.io/gpu-mode=${mode} already"
    else
      done_="${done_}, gshare.io/gpu-mode=${mode} kept (--gpu-mode ${gpu_mode} is only for nodes without a mode)"
    fi
    info "node ${node}: ${done_}"
  done
  while IFS='|' read -r node _ mode _; do
    [ -n "${node}" ] || continue
    if [ -z "${mode}" ] && ! is_gpu_node "${node}"; then
      unlabelled="${unlabelled} ${node}"
    fi
  done <<<"${NODE_TABLE}"
  if [ -n "${unlabelled}" ]; then
    info "warning: nodes without gshare.io/gpu-mode:${unlabelled} (not GPU nodes here: label CPU nodes with kubectl --kubeconfig ${kubeconfig} label node NODE gshare.io/gpu-mode=cpu, or name GPU nodes with --gpu-nodes)"
  fi
}

# registered_gpu_memory REGISTER: the MiB in HAMi's hami.io/node-nvidia-register annotation (JSON since v2.8:
# "devmem":N per device; before: uuid,count,devmem,devcore,type,... joined by ':'), or 0.
registered_gpu_memory() {
  if [[ "$1" == \[* ]]; then
    awk '{ n = split($0, part, /[,{}]/); for (i = 1; i <= n; i++) if (part[i] ~ /"devmem"/) { v = part[i]; sub(/.*:/, "", v); gsub(/[^0-9]/, "", v); t += v } } END { print t + 0 }' <<<"$1"
  else
    tr ':' '\n' <<<"$1" | awk -F, 'NF >= 3 && $3 ~ /^[0-9]+$/ { t += $3 } END { print t + 0 }'
  fi
}

# wait_gpu_capacity KUBECONFIG: polls until every GPU node has nvidia.com/gpu and GPU memory (the capacity
# nvidia.com/gpumem, or, as HAMi may account it in its scheduler only, the memory its device plugin registered on the
# node) - what the attach workflow's gpu_nodes_ready check wants.
wait_gpu_capacity() {
  local kubeconfig=$1 tries=0 answer node row gpu gpumem register waiting found
  local jsonpath='{range .items[*]}{.metadata.name}|{.status.capacity.nvidia\.com/gpu}|{.status.capacity.nvidia\.com/gpumem}|{.metadata.annotations.hami\.io/node-nvidia-register}{"\n"}{end}'
  while :; do
    tries=$((tries + 1))
    answer="$(kubectl --kubeconfig "${kubeconfig}" get nodes -o "jsonpath=${jsonpath}" 2>/dev/null || true)"
    waiting=""
    found=""
    for node in "${GPU_NODES[@]}"; do
      row="$(awk -F'|' -v node="${node}" '$1 == node { print; exit }' <<<"${answer}")"
      IFS='|' read -r _ gpu gpumem register <<<"${row}"
      [[ "${gpu}" =~ ^[0-9]+$ ]] || gpu=0
      [[ "${gpumem}" =~ ^[0-9]+$ ]] || gpumem=0
      if [ "${gpumem}" -eq 0 ] && [ -n "${register}" ]; then
        gpumem="$(registered_gpu_memory "${register}")"
      fi
      if [ "${gpu}" -gt 0 ] && [ "${gpumem}" -gt 0 ]; then
        found="${found}, ${node} nvidia.com/gpu=${gpu} nvidia.com/gpumem=${gpumem}"
      else
        waiting="${waiting} ${node}"
      fi
    done
    if [ -z "${waiting}" ]; then
      info "HAMi publishes the GPU capacity of every GPU node: ${found#, }"
      return 0
    fi
    if [ "${tries}" -ge "${HAMI_WAIT_TRIES}" ]; then
      break
    fi
    info "waiting for HAMi to publish nvidia.com/gpu and nvidia.com/gpumem on:${waiting} (${tries}/${HAMI_WAIT_TRIES})"
    sleep "${HAMI_WAIT_INTERVAL}"
  done
  fatal "no nvidia.com/gpu or nvidia.com/gpumem on:${waiting} after ${HAMI_WAIT_TRIES} tries ${HAMI_WAIT_INTERVAL} s apart. Check HAMi's device plugin on each: kubectl --kubeconfig ${kubeconfig} -n kube-system get pods -l app.kubernetes.io/component=hami-device-plugin -o wide (no pod on a node: its gpu=on label or a taint), then kubectl --kubeconfig ${kubeconfig} -n kube-system logs POD -c device-plugin (or logs ds/hami-device-plugin -c device-plugin); raise HAMI_WAIT_TRIES if it is still starting"
}

helm_origin() {
  if [ -n "$1" ]; then printf 'Helm release %s/%s' "$2" "$1"; else printf 'not installed by Helm'; fi
}

# foreign_ingress KUBECONFIG: the ingress-nginx objects that are not this script's (the Helm release ingress-nginx in
# namespace ingress-nginx), or nothing: an IngressClass nginx, and Deployments or DaemonSets labelled
# app.kubernetes.io/name=ingress-nginx in any namespace.
foreign_ingress() {
  local k=(kubectl --kubeconfig "$1") found="" class controller ref release release_ns
  class="$("${k[@]}" get ingressclass nginx --ignore-not-found \
    -o 'jsonpath={.spec.controller}|{.metadata.annotations.meta\.helm\.sh/release-name}|{.metadata.annotations.meta\.helm\.sh/release-namespace}' \
    2>/dev/null || true)"
  if [ -n "${class}" ]; then
    IFS='|' read -r controller release release_ns <<<"${class}"
    if [ "${release_ns}/${release}" != ingress-nginx/ingress-nginx ]; then
      found="IngressClass nginx (controller ${controller:-unknown}, $(helm_origin "${release}" "${release_ns}"))"
    fi
  fi
  while IFS='|' read -r ref release release_ns; do
    [ -n "${ref}" ] || continue
    if [ "${release_ns}/${release}" != ingress-nginx/ingress-nginx ]; then
      found="${found:+${found}, }${ref} ($(helm_origin "${release}" "${release_ns}"))"
    fi
  done < <("${k[@]}" get deployments,daemonsets --all-namespaces -l app.kubernetes.io/name=ingress-nginx \
    -o 'jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name}|{.metadata.annotations.meta\.helm\.sh/release-name}|{.metadata.annotations.meta\.helm\.sh/release-namespace}{"\n"}{end}' \
    2>/dev/null || true)
  printf '%s' "${found}"
}

# install_ingress KUBECONFIG SKIP_INGRESS INGRESS_NODE: ingress-nginx (release ingress-nginx, NodePort 30080/30443),
# its controller pinned to INGRESS_NODE when one is given; never over an ingress-nginx someone else installed.
install_ingress() {
  local kubeconfig=$1 skip_ingress=$2 ingress_node=$3 foreign
  local h=(helm --kubeconfig "${kubeconfig}")
  if [ "${skip_ingress}" = 1 ]; then
    info "ingress-nginx: skipped (--skip-ingress)"
    return 0
  fi
  foreign="$(foreign_ingress "${kubeconfig}")"
  if [ -n "${foreign}" ]; then
    info "ingress-nginx: found one this script did not install: ${foreign}; not installing over it (pass --skip-ingress to say you keep it)"
    return 0
  fi
  local args=(upgrade --install ingress-nginx ingress-nginx/ingress-nginx --namespace ingress-nginx --create-namespace
    -f "${REPO_ROOT}/deploy/addons/ingress-nginx-values.yaml")
  local pinned=""
  if [ -n "${ingress_node}" ]; then
    local hostname taints taint i=0
    hostname="$(node_field "${ingress_node}" 6)"
    hostname="${hostname:-${ingress_node}}"
    taints="$(node_field "${ingress_node}" 7)"
    args+=(--set-string "controller.nodeSelector.kubernetes\\.io/hostname=${hostname}")
    pinned=", controller pinned to ${ingress_node} (nodeSelector kubernetes.io/hostname=${hostname}"
    for taint in ${taints}; do
      args+=(--set "controller.tolerations[${i}].key=${taint%:*}" --set "controller.tolerations[${i}].operator=Exists"
        --set "controller.tolerations[${i}].effect=${taint##*:}")
      i=$((i + 1))
    done
    if [ -n "${taints// /}" ]; then
      pinned="${pinned}, tolerating its taints ${taints% }"
    fi
    pinned="${pinned})"
  fi
  info "ingress-nginx (NodePort 30080/30443${pinned})"
  "${h[@]}" repo add ingress-nginx "${INGRESS_NGINX_CHART_REPO}" --force-update >/dev/null \
    || fatal "could not add ingress-nginx's chart repository ${INGRESS_NGINX_CHART_REPO} (INGRESS_NGINX_CHART_REPO)"
  "${h[@]}" "${args[@]}" --wait >&2 \
    || fatal "installing ingress-nginx failed (helm above); check kubectl --kubeconfig ${kubeconfig} -n ingress-nginx get pods -o wide${ingress_node:+ (can its controller run on ${ingress_node}?)}, then run this again, or pass --skip-ingress to keep an ingress-nginx of your own"
}

# check_ingress_node KUBECONFIG NODE DOMAIN: an ingress-nginx controller pod runs on NODE, which DOMAIN points at.
check_ingress_node() {
  local kubeconfig=$1 node=$2 domain=$3 ref on phase where="" hostname
  while IFS='|' read -r ref on phase; do
    [ -n "${ref}" ] || continue
    if [ "${on}" = "${node}" ] && [ "${phase}" = Running ]; then
      info "ingress-nginx controller ${ref} runs on ${node}"
      return 0
    fi
    where="${where} ${ref} on ${on:-no node} (${phase:-unknown})"
  done < <(kubectl --kubeconfig "${kubeconfig}" get pods --all-namespaces \
    -l app.kubernetes.io/name=ingress-nginx,app.kubernetes.io/component=controller \
    -o 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}|{.spec.nodeName}|{.status.phase}{"\n"}{end}' \
    2>/dev/null || true)
  hostname="$(node_field "${node}" 6)"
  hostname="${hostname:-${node}}"
  fatal "no ingress-nginx controller runs on --ingress-node ${node} (controller pods:${where:- none}). The DNS of the session domain ${domain} must point at ${node}, so the controller must run there: pin it with the chart's controller.nodeSelector kubernetes.io/hostname=${hostname} (and tolerations of the node's taints) - this script does so itself when it installs ingress-nginx (without --skip-ingress, and no other ingress-nginx in the cluster); for an ingress-nginx you manage: helm upgrade RELEASE ingress-nginx/ingress-nginx -n NAMESPACE --reuse-values --set-string controller.nodeSelector.kubernetes\\.io/hostname=${hostname}. Or pass the node its controller runs on as --ingress-node and point the DNS there"
}

# dns_reminder DOMAIN INGRESS_NODE GATEWAY
dns_reminder() {
  local domain=$1 node=$2 gateway=$3 addresses="" entry
  if [ "${gateway}" = envoy ]; then
    info "DNS: ${domain} must resolve to the address of the Gateway envoy-gateway-system/gshare (or to a front proxy forwarding to it)"
  elif [ -n "${node}" ]; then
    for entry in $(node_field "${node}" 8); do
      case "${entry}" in
        InternalIP=*|ExternalIP=*) addresses="${addresses}, ${entry%%=*} ${entry#*=}" ;;
      esac
    done
    info "DNS: ${domain} must resolve to ${node}${addresses:+ (${addresses#, })}, or to a front proxy forwarding to its NodePort 30080; session URLs are paths under that one host (https://${domain}/s/<session>/), so no wildcard record is needed"
  else
    info "DNS: ${domain} must resolve to a node running the ingress-nginx controller (NodePort 30080), or to a front proxy forwarding to it; --ingress-node NODE pins the controller to one node and records it"
  fi
}

install_runtime() {
  local kubeconfig=$1 skip_ingress=$2 storage_values=$3 gateway=$4 ingress_node=$5 gpu_mode=$6 domain=$7
  local k=(kubectl --kubeconfig "${kubeconfig}")
  local h=(helm --kubeconfig "${kubeconfig}")
  info "RuntimeClass nvidia"
  "${k[@]}" apply --server-side --field-manager=gshare-attach -f "${REPO_ROOT}/deploy/addons/runtimeclass-nvidia.yaml" >&2 \
    || fatal "could not apply the RuntimeClass nvidia (kubectl apply above); fix it and run this again"

  label_gpu_nodes "${kubeconfig}" "${gpu_mode}"

  local version
  version="$("${k[@]}" version -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\(v[0-9][^"+-]*\).*/\1/p' | tail -n 1 || true)"
  [ -n "${version}" ] || fatal "could not read the cluster's Kubernetes version (kubectl --kubeconfig ${kubeconfig} version -o json)"
  info "HAMi ${HAMI_CHART_VERSION}, scheduler image pinned to ${version}"
  "${h[@]}" repo add hami-charts "${HAMI_CHART_REPO}" --force-update >/dev/null \
    || fatal "could not add HAMi's chart repository ${HAMI_CHART_REPO} (HAMI_CHART_REPO)"
  "${h[@]}" upgrade --install hami hami-charts/hami --namespace kube-system --version "${HAMI_CHART_VERSION}" \
    -f "${REPO_ROOT}/deploy/addons/hami-values.yaml" --set "scheduler.kubeScheduler.imageTag=${version}" --wait >&2 \
    || fatal "installing HAMi failed (helm above); check kubectl --kubeconfig ${kubeconfig} -n kube-system get pods -l app.kubernetes.io/instance=hami (is a kube-scheduler image ${version} pullable?), then run this again"
  wait_gpu_capacity "${kubeconfig}"

  if [ "${gateway}" = envoy ]; then
    info "Envoy Gateway ${ENVOY_GATEWAY_VERSION} (Backend API on, for the sessions' external auth) and the Gateway envoy-gateway-system/gshare"
    "${h[@]}" upgrade --install eg "${ENVOY_GATEWAY_CHART}" --version "${ENVOY_GATEWAY_VERSION}" \
      --namespace envoy-gateway-system --create-namespace \
      --set config.envoyGateway.extensionApis.enableBackend=true --wait >&2 \
      || fatal "installing Envoy Gateway failed (helm above); fix it and run this again"
    "${k[@]}" apply --server-side --field-manager=gshare-attach -f "${REPO_ROOT}/deploy/addons/envoy-gateway.yaml" >&2 \
      || fatal "could not apply the Gateway envoy-gateway-system/gshare (kubectl apply above); fix it and run this again"
  else
    install_ingress "${kubeconfig}" "${skip_ingress}" "${ingress_node}"
    if [ -n "${ingress_node}" ]; then
      check_ingress_node "${kubeconfig}" "${ingress_node}" "${domain}"
    fi
  fi
  dns_reminder "${domain}" "${ingress_node}" "${gateway}"

  if [ -n "${storage_values}" ]; then
    info "democratic-csi (StorageClass $(storage_class_of "${storage_values}"))"
    "${h[@]}" repo add democratic-csi "${DEMOCRATIC_CSI_CHART_REPO}" --force-update >/dev/null \
      || fatal "could not add democratic-csi's chart repository ${DEMOCRATIC_CSI_CHART_REPO} (DEMOCRATIC_CSI_CHART_REPO)"
    "${h[@]}" upgrade --install gshare-storage democratic-csi/democratic-csi --namespace gshare-storage \
      --create-namespace -f "${storage_values}" >&2 \
      || fatal "installing democratic-csi failed (helm above); fix ${storage_values} or the cluster and run this again"
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
  local gateway="" gpu_nodes="" gpu_mode=fractional
  local nfs_check=1 node_checks=1 storage_class="" temporal_address="" temporal_check=1
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --kubeconfig|--name|--control-plane|--session-domain|--ingress-node|--storage-values|--gateway|--gpu-nodes|--gpu-mode|--temporal-address)
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
          --gpu-nodes) gpu_nodes=$2 ;;
          --gpu-mode) gpu_mode=$2 ;;
          --temporal-address) temporal_address=$2 ;;
        esac
        shift ;;
      --skip-ingress) skip_ingress=1 ;;
      --skip-nfs-check) nfs_check=0 ;;
      --skip-node-checks) node_checks=0 ;;
      --skip-temporal-check) temporal_check=0 ;;
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
  if [ -n "${temporal_address}" ]; then
    valid_temporal_address "${temporal_address}" \
      || usage_error "--temporal-address takes HOST:PORT (e.g. gshare.example.com:443), not ${temporal_address}"
  else
    temporal_address="$(default_temporal_address "${control_plane}")"
  fi
  case "${gpu_mode}" in
    exclusive|fractional) ;;
    *) usage_error "--gpu-mode takes exclusive or fractional (the gshare.io/gpu-mode of GPU nodes), not ${gpu_mode}" ;;
  esac
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

  # Checks first: nothing is installed or registered before they all pass.
  check_kubeconfig "${kubeconfig}"
  read_nodes "${kubeconfig}"
  if [ -n "${ingress_node}" ] && ! node_exists "${ingress_node}"; then
    fatal "--ingress-node ${ingress_node} is not a node of this cluster (its nodes: $(node_names)); name the node the session domain's DNS points at"
  fi
  select_gpu_nodes "${kubeconfig}" "${gpu_nodes}"
  if [ -z "${GSHARE_TOKEN:-}" ]; then
    info "GSHARE_TOKEN is not set: asking the control plane (current kubectl context) for a super admin token"
    GSHARE_TOKEN="$("${REPO_ROOT}/hack/bootstrap-superadmin.sh" --cluster)"
  fi
  if [ -n "${storage_values}" ] && [ "${nfs_check}" = 1 ]; then
    check_nfs_clients "${kubeconfig}"
  fi
  if [ "${node_checks}" = 1 ]; then
    check_gpu_nodes "${kubeconfig}"
  else
    info "GPU node checks: skipped (--skip-node-checks)"
  fi
  if [ "${temporal_check}" = 1 ]; then
    check_temporal_gateway "${kubeconfig}" "${temporal_address}"
  else
    info "Temporal gateway check: skipped (--skip-temporal-check)"
  fi
  install_runtime "${kubeconfig}" "${skip_ingress}" "${storage_values}" "${gateway}" "${ingress_node}" "${gpu_mode}" "${domain}"

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
