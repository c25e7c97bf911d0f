#!/usr/bin/env bash
# attach-cluster-fake.sh - kubectl and helm for hack/test/attach_cluster.bats: a fake cluster kept in files, so that
# what hack/attach-cluster.sh changes (labels, installs) is what a later call, or a second run, sees. The bats setup
# links kubectl and helm to this file; it dispatches on the name it was called by.
#
# Every call appends "<name> <args...>" to $LOG (newlines in arguments as spaces). The cluster is $STATE:
#   nodes                one line a node: name|gpu|gshare.io/gpu-mode|nvidia.com/gpu.present|nvidia.com/gpu
#                        capacity|kubernetes.io/hostname|taints (key:effect ...)|addresses (type=address ...)
#                        (kubectl label rewrites the gpu and mode fields)
#   no-context           the kubeconfig has no current context
#   unreachable          the apiserver does not answer
#   no-nfs-<node>, no-smi-<node>, no-ctk-<node>, no-runtime-<node>, no-debug-<node>
#                        kubectl debug node: no NFS client, nvidia-smi fails, nvidia-ctk fails, containerd has no
#                        nvidia runtime, the debug pod gives no answer
#   hami                 HAMi is installed (helm upgrade --install hami writes it): gpu=on nodes get capacity
#   capacity-after       capacity appears only from this capacity poll on (counted in capacity-polls)
#   no-capacity-<node>   HAMi never publishes this node's capacity
#   register-only-<node> no nvidia.com/gpumem capacity, only HAMi's hami.io/node-nvidia-register annotation
#   ingressclass         the IngressClass nginx: controller|release|release namespace
#   ingress-workloads    the ingress-nginx Deployments/DaemonSets: kind namespace/name|release|release namespace
#   ingress-pods         the ingress-nginx controller pods: namespace/name|node|phase
#   ingress-unpinned-node where helm's ingress-nginx controller runs when not pinned (default cpu-1)
#   helm-fails-<release> helm upgrade --install <release> fails
#   temporal-gateway     what the Temporal gateway check's pod (kubectl run gshare-temporal-check) gets: absent, the
#                        gateway's gRPC answer (HTTP/2 200, grpc-status 16); "timeout", no answer; an HTTP status,
#                        that status without a grpc-status
set -o errexit -o nounset -o pipefail

NAME="${0##*/}"
: "${LOG:?LOG must be set}" "${STATE:?STATE must be set}"
args="$*"
printf '%s %s\n' "${NAME}" "${args//$'\n'/ }" >>"${LOG}"

# arg_after FLAG ARGS...: the argument after FLAG.
arg_after() {
  local flag=$1
  shift
  while [[ $# -gt 1 ]]; do
    if [[ $1 == "${flag}" ]]; then
      printf '%s' "$2"
      return 0
    fi
    shift
  done
  return 1
}

capacity_of() {
  local node=$1 gpu=$2 preset=$3 polls after
  polls="$(cat "${STATE}/capacity-polls" 2>/dev/null || echo 0)"
  after="$(cat "${STATE}/capacity-after" 2>/dev/null || echo 0)"
  if [[ -f ${STATE}/hami && ${gpu} == on && ! -f ${STATE}/no-capacity-${node} && ${polls} -ge ${after} ]]; then
    echo 4
  else
    echo "${preset}"
  fi
}

node_table() {
  local name gpu mode present capacity rest
  while IFS='|' read -r name gpu mode present capacity rest; do
    [[ -n ${name} ]] || continue
    printf '%s|%s|%s|%s|%s|%s\n' "${name}" "${gpu}" "${mode}" "${present}" "$(capacity_of "${name}" "${gpu}" "${capacity}")" "${rest}"
  done <"${STATE}/nodes"
}

capacity_table() {
  local n name gpu capacity
  n="$(cat "${STATE}/capacity-polls" 2>/dev/null || echo 0)"
  echo $((n + 1)) >"${STATE}/capacity-polls"
  while IFS='|' read -r name gpu _ _ capacity _; do
    [[ -n ${name} ]] || continue
    capacity="$(capacity_of "${name}" "${gpu}" "${capacity}")"
    if [[ -z ${capacity} || ${capacity} == 0 ]]; then
      printf '%s|||\n' "${name}"
    elif [[ -f ${STATE}/register-only-${name} ]]; then
      printf '%s|%s||[{"id":"GPU-%s","count":10,"devmem":81920,"devcore":100,"type":"NVIDIA-A100"}]\n' "${name}" "${capacity}" "${name}"
    else
      printf '%s|%s|81920|\n' "${name}" "${capacity}"
    fi
  done <"${STATE}/nodes"
}

# label NODE KEY=VALUE... [--overwrite]: like kubectl, refuses to change a label's value without --overwrite.
label() {
  local node=$1 overwrite=0 arg key value field current
  shift
  for arg in "$@"; do [[ ${arg} == --overwrite ]] && overwrite=1; done
  grep -q "^${node}|" "${STATE}/nodes" || { echo "Error from server (NotFound): nodes \"${node}\" not found" >&2; exit 1; }
  for arg in "$@"; do
    [[ ${arg} == *=* ]] || continue
    key=${arg%%=*}
    value=${arg#*=}
    case ${key} in
      gpu) field=2 ;;
      gshare.io/gpu-mode) field=3 ;;
      *) continue ;;
    esac
    current="$(awk -F'|' -v n="${node}" -v f="${field}" '$1 == n { print $f }' "${STATE}/nodes")"
    if [[ -n ${current} && ${current} != "${value}" && ${overwrite} == 0 ]]; then
      echo "error: '${key}' already has a value (${current}), and --overwrite is false" >&2
      exit 1
    fi
    awk -F'|' -v OFS='|' -v n="${node}" -v f="${field}" -v v="${value}" '$1 == n { $f = v } { print }' \
      "${STATE}/nodes" >"${STATE}/nodes.new"
    mv "${STATE}/nodes.new" "${STATE}/nodes"
  done
  echo "node/${node} labeled"
}

# temporal_check: what curl prints in the check pod (-D - -w 'http_code=...'), and its exit status.
temporal_check() {
  local answer
  answer="$(cat "${STATE}/temporal-gateway" 2>/dev/null || true)"
  case ${answer} in
    "")
      printf 'HTTP/2 200 \r\ncontent-type: application/grpc\r\ngrpc-status: 16\r\ngrpc-message: no operator token\r\n\r\nhttp_code=200\n' ;;
    timeout)
      printf 'http_code=000\n'
      echo 'curl: (28) Connection timed out after 15002 milliseconds' >&2
      echo 'pod default/gshare-temporal-check terminated (Error)' >&2
      exit 1 ;;
    *) printf 'HTTP/2 %s \r\ncontent-type: text/html\r\n\r\nhttp_code=%s\n' "${answer}" "${answer}" ;;
  esac
}

debug_node() {
  local args="$*" node
  node="${args#*debug node/}"
  node="${node%% *}"
  [[ ! -f ${STATE}/no-debug-${node} ]] || { echo "error: timed out waiting for the debug pod" >&2; exit 1; }
  case ${args} in
    *nfs-client*)
      if [[ -f ${STATE}/no-nfs-${node} ]]; then echo nfs-client=no; else echo nfs-client=yes; fi ;;
    *nvidia-smi*)
      if [[ -f ${STATE}/no-smi-${node} ]]; then echo nvidia-smi=no; else echo nvidia-smi=yes; fi
      if [[ -f ${STATE}/no-ctk-${node} ]]; then echo nvidia-ctk=no; else echo nvidia-ctk=yes; fi
      if [[ -f ${STATE}/no-runtime-${node} ]]; then echo nvidia-runtime=no; else echo nvidia-runtime=yes; fi ;;
  esac
}

fake_kubectl() {
  local kubeconfig
  kubeconfig="$(arg_after --kubeconfig "$@" || true)"
  case "$*" in
    *" run gshare-temporal-check "*) temporal_check ;;
    *"config view --minify"*)
      [[ ! -f ${STATE}/no-context ]] || { echo 'error: current-context must exist in order to minify' >&2; exit 1; }
      sed -n 's/^[[:space:]]*server:[[:space:]]*//p' "${kubeconfig}" | head -n 1 | tr -d '\n' ;;
    *"get --raw /readyz"*)
      if [[ -f ${STATE}/unreachable ]]; then
        echo 'Unable to connect to the server: dial tcp 10.0.0.10:6443: i/o timeout' >&2
        exit 1
      fi
      echo ok ;;
    *"version -o json"*) printf '{\n  "clientVersion": {"gitVersion": "v1.36.0"},\n  "serverVersion": {"gitVersion": "v1.36.2"}\n}\n' ;;
    *"get nodes -o jsonpath={.items[*].metadata.name}"*) cut -d'|' -f1 "${STATE}/nodes" | tr '\n' ' ' ;;
    *"get nodes -o jsonpath="*"gpu-mode"*) node_table ;;
    *"get nodes -o jsonpath="*"node-nvidia-register"*) capacity_table ;;
    *" label node "*)
      shift 2
      shift 2
      label "$@" ;;
    *"debug node/"*) debug_node "$@" ;;
    *" apply "*) echo "applied (server-side)" ;;
    *"get pods --namespace default -o name"*) echo "pod/node-debugger-gpu-1-x7k2p" ;;
    *"get ingressclass nginx"*) cat "${STATE}/ingressclass" 2>/dev/null || true ;;
    *"get deployments,daemonsets"*) cat "${STATE}/ingress-workloads" 2>/dev/null || true ;;
    *"get pods --all-namespaces -l app.kubernetes.io/name=ingress-nginx"*) cat "${STATE}/ingress-pods" 2>/dev/null || true ;;
  esac
}

fake_helm() {
  local args="$*" node release
  if [[ ${args} == *"upgrade --install "* ]]; then
    release="${args#*upgrade --install }"
    release="${release%% *}"
    if [[ -f ${STATE}/helm-fails-${release} ]]; then
      echo "Error: UPGRADE FAILED: context deadline exceeded" >&2
      exit 1
    fi
    echo "Release \"${release}\" has been upgraded. Happy Helming!"
  fi
  case ${args} in
    *"upgrade --install hami "*) touch "${STATE}/hami" ;;
    *"upgrade --install ingress-nginx "*)
      case ${args} in
        *"controller.nodeSelector.kubernetes\\.io/hostname="*)
          node="${args#*controller.nodeSelector.kubernetes\\.io/hostname=}"
          node="${node%% *}" ;;
        *) node="$(cat "${STATE}/ingress-unpinned-node" 2>/dev/null || echo cpu-1)" ;;
      esac
      echo 'k8s.io/ingress-nginx|ingress-nginx|ingress-nginx' >"${STATE}/ingressclass"
      echo 'Deployment ingress-nginx/ingress-nginx-controller|ingress-nginx|ingress-nginx' >"${STATE}/ingress-workloads"
      echo "ingress-nginx/ingress-nginx-controller-5d8f|${node}|Running" >"${STATE}/ingress-pods" ;;
  esac
}

case ${NAME} in
  kubectl) fake_kubectl "$@" ;;
  helm) fake_helm "$@" ;;
  *) echo "attach-cluster-fake.sh: called as ${NAME}" >&2; exit 1 ;;
esac
