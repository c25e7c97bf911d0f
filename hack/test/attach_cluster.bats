#!/usr/bin/env bats
# hack/attach-cluster.sh against stubbed kubectl, helm and curl: what it installs, in which order,
# what it sends to the API, and that bad input changes nothing.
# shellcheck disable=SC2154 # status, output and stderr are set by bats' run

setup() {
  bats_require_minimum_version 1.5.0
  REPO_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
  SCRIPT="${REPO_ROOT}/hack/attach-cluster.sh"
  BIN="${BATS_TEST_TMPDIR}/bin"
  export LOG="${BATS_TEST_TMPDIR}/calls.log"
  export STATE="${BATS_TEST_TMPDIR}/state"
  mkdir -p "${BIN}" "${STATE}"
  : >"${LOG}"
  cat >"${BIN}/kubectl" <<'STUB'
#!/usr/bin/env bash
printf 'kubectl %s\n' "$*" >>"${LOG}"
case "$*" in
  *"version -o json"*) echo '{"serverVersion": {"gitVersion": "v1.36.2"}}' ;;
  *"get nodes -o jsonpath={.items[*].metadata.name}"*) echo 'gpu-1 gpu-2 master cpu-1' ;;
  *"get nodes"*) printf 'gpu-1 exclusive\ngpu-2 fractional\nmaster \ncpu-1 cpu\n' ;;
  *"debug node/"*)
    args="$*"; node="${args#*debug node/}"; node="${node%% *}"
    if [ -f "${STATE}/no-nfs-${node}" ]; then echo nfs-client=no; else echo nfs-client=yes; fi ;;
  *"get pods --namespace default -o name"*) echo "pod/node-debugger-gpu-1-x7k2p" ;;
esac
STUB
  cat >"${BIN}/helm" <<'STUB'
#!/usr/bin/env bash
printf 'helm %s\n' "$*" >>"${LOG}"
STUB
  cat >"${BIN}/curl" <<'STUB'
#!/usr/bin/env bash
body="$(cat)"
printf 'curl %s\n' "$*" >>"${LOG}"
[ -n "${body}" ] && printf '%s\n' "${body}" >"${STATE}/last-body"
case "$*" in
  *"POST"*"/api/v1/clusters"*)
    if [ -f "${STATE}/conflict" ]; then printf '{"detail":"a cluster named lab-c2 is already registered"}\n409'; exit 0; fi
    if [ -f "${STATE}/registered" ]; then printf '{"detail":"a cluster named lab-c2 is already registered as clu_abc","cluster_id":"clu_abc"}\n409'; exit 0; fi
    printf '{"cluster":{"id":"clu_abc","status":"pending"},"operation":{"id":"cluster-attach-clu_abc"}}\n202' ;;
  *"POST"*"/api/v1/clusters/clu_abc/attach"*)
    if [ -f "${STATE}/attach-running" ]; then printf '{"detail":"an attach of clu_abc is running"}\n409'; exit 0; fi
    printf '{"cluster":{"id":"clu_abc","status":"attaching"},"operation":{"id":"cluster-attach-clu_abc"}}\n202' ;;
  *"PATCH"*"/api/v1/clusters/clu_abc"*)
    if [ -f "${STATE}/patch-refused" ]; then printf '{"detail":"session_gateway must name the cluster Gateway"}\n422'; exit 0; fi
    printf '{"id":"clu_abc","session_routing":"gateway-api"}\n200' ;;
  *"/api/v1/operations/"*)
    n=$(cat "${STATE}/polls" 2>/dev/null || echo 0); echo $((n + 1)) >"${STATE}/polls"
    if [ -f "${STATE}/fail" ]; then printf '{"status":"failed","error":"registration refused: RuntimeClass missing"}\n200'
    elif [ "${n}" -lt 1 ]; then printf '{"status":"running","next_step":"deploy the cluster-worker"}\n200'
    else printf '{"status":"completed"}\n200'; fi ;;
esac
STUB
  chmod +x "${BIN}"/*
  export PATH="${BIN}:/usr/bin:/bin"
  export GSHARE_TOKEN="admin-token"
  export ATTACH_WAIT_INTERVAL=0
  KUBECONFIG_FILE="${BATS_TEST_TMPDIR}/remote.kubeconfig"
  cat >"${KUBECONFIG_FILE}" <<'KC'
apiVersion: v1
kind: Config
clusters:
- name: c2
  cluster:
    server: https://10.0.0.10:6443
contexts: [{name: c2, context: {cluster: c2, user: admin}}]
current-context: c2
users: [{name: admin, user: {token: "s3cr\"et"}}]
KC
}

attach() {
  run --separate-stderr "${SCRIPT}" --kubeconfig "${KUBECONFIG_FILE}" --name lab-c2 \
    --control-plane https://gshare.example.com/ --session-domain gshare.lab-c2.example.com --ingress-node master-c2 "$@"
}

line_of() { grep -n -m 1 -E -- "$1" "${LOG}" | cut -d: -f1; }

@test "installs the runtime in order, registers the cluster and follows the attach to its end" {
  attach
  [ "${status}" -eq 0 ]
  [ "${output}" = "clu_abc" ]
  grep -q -- "kubectl --kubeconfig ${KUBECONFIG_FILE} apply --server-side --field-manager=gshare-attach -f ${REPO_ROOT}/deploy/addons/runtimeclass-nvidia.yaml" "${LOG}"
  grep -q -- "helm --kubeconfig ${KUBECONFIG_FILE} upgrade --install hami hami-charts/hami --namespace kube-system --version 2.10.0 .*--set scheduler.kubeScheduler.imageTag=v1.36.2 --wait" "${LOG}"
  grep -q -- "upgrade --install ingress-nginx ingress-nginx/ingress-nginx" "${LOG}"
  [ "$(line_of 'runtimeclass-nvidia')" -lt "$(line_of 'install hami')" ]
  [ "$(line_of 'install hami')" -lt "$(line_of 'POST')" ]
  [ "$(line_of 'POST')" -lt "$(line_of 'operations/cluster-attach-clu_abc')" ]
  [[ "${stderr}" == *"next step: deploy the cluster-worker"* ]]
  [[ "${stderr}" == *"completed"* ]]
}

@test "labels GPU nodes gpu=on and names the nodes without a mode" {
  attach
  [ "${status}" -eq 0 ]
  grep -q -- "label node gpu-1 gpu=on --overwrite" "${LOG}"
  grep -q -- "label node gpu-2 gpu=on --overwrite" "${LOG}"
  run ! grep -q -- "label node cpu-1" "${LOG}"
  [[ "${stderr}" == *"nodes without gshare.io/gpu-mode: master"* ]]
}

@test "sends the kubeconfig whole and JSON-escaped, with the token and the session domain" {
  attach
  [ "${status}" -eq 0 ]
  grep -q -- "-H Authorization: Bearer admin-token" "${LOG}"
  grep -qF '"name":"lab-c2"' "${STATE}/last-body"
  grep -qF '"session_domain":"gshare.lab-c2.example.com"' "${STATE}/last-body"
  grep -qF '"ingress_node":"master-c2"' "${STATE}/last-body"
  grep -qF 's3cr\\\"et' "${STATE}/last-body"
  grep -qF 'server: https://10.0.0.10:6443\n' "${STATE}/last-body"
}

csi_values() {
  printf 'driver:\n  config:\n    driver: zfs-generic-nfs\nstorageClasses:\n  - name: "gshare-data"\n    defaultClass: false\n' \
    >"${BATS_TEST_TMPDIR}/csi-values.yaml"
}

@test "--skip-ingress and --storage-values change what is installed" {
  csi_values
  attach --skip-ingress --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml" --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "ingress-nginx/ingress-nginx" "${LOG}"
  grep -q -- "upgrade --install gshare-storage democratic-csi/democratic-csi --namespace gshare-storage --create-namespace -f ${BATS_TEST_TMPDIR}/csi-values.yaml" "${LOG}"
  run ! grep -q -- "operations/" "${LOG}"
}

@test "a failed attach says why and exits non-zero" {
  touch "${STATE}/fail"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"attach failed: registration refused: RuntimeClass missing"* ]]
}

@test "a name already registered is a clear 409 with the way to attach again" {
  touch "${STATE}/conflict"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"already registered"* ]]
  [[ "${stderr}" == *"/api/v1/clusters/<id>/attach"* ]]
}

@test "a loopback kubeconfig is refused before anything is installed" {
  sed -i 's#https://10.0.0.10:6443#https://127.0.0.1:6443#' "${KUBECONFIG_FILE}"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"reachable from the control plane"* ]]
  [ ! -s "${LOG}" ]
}

@test "bad arguments print the usage, exit 2 and touch nothing" {
  for args in "" "--name lab-c2" "--bogus" "--kubeconfig /nonexistent --name a --control-plane https://x.example.com --session-domain d.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name Lab_C2 --control-plane https://x.example.com --session-domain d.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name lab --control-plane gshare.example.com --session-domain d.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name lab --control-plane https://x.example.com"; do
    # shellcheck disable=SC2086 # split on purpose
    run --separate-stderr "${SCRIPT}" ${args}
    [ "${status}" -eq 2 ]
    [[ "${stderr}" == *"Usage: hack/attach-cluster.sh"* ]]
  done
  [ ! -s "${LOG}" ]
}

@test "--storage-values checks every node's NFS client and registers the values' StorageClass with the cluster" {
  csi_values
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml" --no-wait
  [ "${status}" -eq 0 ]
  for node in gpu-1 gpu-2 master cpu-1; do
    grep -q -- "debug node/${node} --namespace default --image busybox:1.36 --profile sysadmin" "${LOG}"
  done
  grep -q -- "delete --namespace default --ignore-not-found --wait=false pod/node-debugger-gpu-1-x7k2p" "${LOG}"
  grep -qF '"storage":{"volume_storage_class":"gshare-data"}' "${STATE}/last-body"
  [[ "${stderr}" == *"democratic-csi (StorageClass gshare-data)"* ]]
}

@test "a node without an NFS client stops the attach before anything is installed or registered" {
  csi_values
  touch "${STATE}/no-nfs-gpu-2"
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml"
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"no NFS client on: gpu-2"* ]]
  [[ "${stderr}" == *"apt-get install -y nfs-common"* ]]
  [[ "${stderr}" == *"dnf install -y nfs-utils"* ]]
  run ! grep -q -- "helm" "${LOG}"
  run ! grep -q -- "curl" "${LOG}"
}

@test "--skip-nfs-check attaches without asking the nodes" {
  csi_values
  touch "${STATE}/no-nfs-gpu-2"
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml" --skip-nfs-check --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "debug node/" "${LOG}"
}

@test "storage values that name no StorageClass are a usage error that changes nothing" {
  printf 'driver: zfs-generic-nfs\n' >"${BATS_TEST_TMPDIR}/csi-values.yaml"
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml"
  [ "${status}" -eq 2 ]
  [[ "${stderr}" == *"names no StorageClass"* ]]
  [[ "${stderr}" == *"Usage:"* ]]
  [ ! -s "${LOG}" ]
}

@test "--gateway envoy installs Envoy Gateway and its Gateway instead of ingress-nginx and routes the cluster's sessions through it" {
  ENVOY_GATEWAY_CHART=oci://registry.example.com/envoyproxy/gateway-helm attach --gateway envoy
  [ "${status}" -eq 0 ]
  grep -q -- "helm --kubeconfig ${KUBECONFIG_FILE} upgrade --install eg oci://registry.example.com/envoyproxy/gateway-helm --version v1.10.0 --namespace envoy-gateway-system --create-namespace --set config.envoyGateway.extensionApis.enableBackend=true --wait" "${LOG}"
  grep -q -- "kubectl --kubeconfig ${KUBECONFIG_FILE} apply --server-side --field-manager=gshare-attach -f ${REPO_ROOT}/deploy/addons/envoy-gateway.yaml" "${LOG}"
  ! grep -q -- "ingress-nginx" "${LOG}"
  grep -q -- "curl .*-X PATCH .*https://gshare.example.com/api/v1/clusters/clu_abc" "${LOG}"
  [ "$(line_of 'POST')" -lt "$(line_of 'PATCH')" ]
  [ "$(line_of 'PATCH')" -lt "$(line_of 'operations/')" ]
}

@test "--gateway envoy without ENVOY_GATEWAY_CHART, or another gateway, changes nothing" {
  attach --gateway envoy
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"ENVOY_GATEWAY_CHART"* ]]
  [ ! -s "${LOG}" ]
  attach --gateway traefik
  [ "${status}" -eq 2 ]
  [[ "${stderr}" == *"--gateway takes envoy"* ]]
  [ ! -s "${LOG}" ]
}

@test "a refused routing change after the registration says why" {
  touch "${STATE}/patch-refused"
  ENVOY_GATEWAY_CHART=oci://registry.example.com/envoyproxy/gateway-helm attach --gateway envoy
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"could not set clu_abc's session routing to gateway-api (422)"* ]]
}

@test "a re-run after the registration attaches the registered cluster again and converges" {
  attach
  [ "${status}" -eq 0 ]
  touch "${STATE}/registered"
  : >"${LOG}"
  rm -f "${STATE}/polls"
  attach
  [ "${status}" -eq 0 ]
  [ "${output}" = "clu_abc" ]
  [[ "${stderr}" == *"already registered as clu_abc: attaching it again"* ]]
  grep -q -- "curl .*-X POST .*https://gshare.example.com/api/v1/clusters/clu_abc/attach" "${LOG}"
  grep -q -- "/api/v1/operations/cluster-attach-clu_abc" "${LOG}"
  # The runtime steps ran again as upgrades (idempotent), in the same order.
  grep -q -- "upgrade --install hami" "${LOG}"
}

@test "a re-run while the attach still runs follows that attach" {
  touch "${STATE}/registered" "${STATE}/attach-running"
  attach
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"an attach of clu_abc is already running: following it"* ]]
  grep -q -- "/api/v1/operations/cluster-attach-clu_abc" "${LOG}"
}
