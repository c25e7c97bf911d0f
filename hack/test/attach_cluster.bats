#!/usr/bin/env bats
# hack/attach-cluster.sh against a fake cluster (hack/test/stubs/attach-cluster-fake.sh as kubectl and helm) and a
# stubbed curl: what it checks (the Temporal gateway from a pod in the cluster too), installs and labels, in which order,
# what it sends to the API, that every failed check says what to fix and changes nothing, and that a second run
# converges.
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
  ln -s "${REPO_ROOT}/hack/test/stubs/attach-cluster-fake.sh" "${BIN}/kubectl"
  ln -s "${REPO_ROOT}/hack/test/stubs/attach-cluster-fake.sh" "${BIN}/helm"
  # The cluster: two labelled GPU workers, the control plane (tainted, no mode) and a CPU worker.
  cat >"${STATE}/nodes" <<'NODES'
gpu-1|on|exclusive|true||gpu-1||InternalIP=10.0.0.21 Hostname=gpu-1 
gpu-2|on|fractional|true||gpu-2||InternalIP=10.0.0.22 Hostname=gpu-2 
master-c2|||||master-c2|node-role.kubernetes.io/control-plane:NoSchedule |InternalIP=10.0.0.10 ExternalIP=203.0.113.10 Hostname=master-c2 
cpu-1||cpu|||cpu-1||InternalIP=10.0.0.31 Hostname=cpu-1 
NODES
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
  chmod +x "${BIN}/curl"
  export PATH="${BIN}:/usr/bin:/bin"
  unset HAMI_WAIT_TRIES NODE_CHECK_IMAGE NFS_CHECK_IMAGE ENVOY_GATEWAY_CHART ATTACH_WAIT_TRIES TEMPORAL_CHECK_IMAGE
  export GSHARE_TOKEN="admin-token"
  export ATTACH_WAIT_INTERVAL=0
  export HAMI_WAIT_INTERVAL=0
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

# nothing_changed: no install, no label, no registration.
nothing_changed() {
  run ! grep -qE -- '^helm|^curl| apply | label ' "${LOG}"
}

# An ingress-nginx someone else installed (plain manifests, no Helm), its controller on NODE.
foreign_ingress_on() {
  echo 'k8s.io/ingress-nginx||' >"${STATE}/ingressclass"
  echo 'Deployment ingress-nginx/ingress-nginx-controller||' >"${STATE}/ingress-workloads"
  echo "ingress-nginx/ingress-nginx-controller-7c9|$1|Running" >"${STATE}/ingress-pods"
}

@test "installs the runtime in order, registers the cluster and follows the attach to its end" {
  attach
  [ "${status}" -eq 0 ]
  [ "${output}" = "clu_abc" ]
  grep -q -- "kubectl --kubeconfig ${KUBECONFIG_FILE} apply --server-side --field-manager=gshare-attach -f ${REPO_ROOT}/deploy/addons/runtimeclass-nvidia.yaml" "${LOG}"
  grep -q -- "helm --kubeconfig ${KUBECONFIG_FILE} upgrade --install hami hami-charts/hami --namespace kube-system --version 2.10.0 .*--set scheduler.kubeScheduler.imageTag=v1.36.2 --wait" "${LOG}"
  grep -q -- "upgrade --install ingress-nginx ingress-nginx/ingress-nginx" "${LOG}"
  [ "$(line_of 'get --raw /readyz')" -lt "$(line_of 'debug node/gpu-1')" ]
  [ "$(line_of 'debug node/gpu-2')" -lt "$(line_of 'runtimeclass-nvidia')" ]
  [ "$(line_of 'runtimeclass-nvidia')" -lt "$(line_of 'install hami')" ]
  [ "$(line_of 'install hami')" -lt "$(line_of 'node-nvidia-register')" ]
  [ "$(line_of 'node-nvidia-register')" -lt "$(line_of 'install ingress-nginx')" ]
  [ "$(line_of 'install ingress-nginx')" -lt "$(line_of 'POST')" ]
  [ "$(line_of 'POST')" -lt "$(line_of 'operations/cluster-attach-clu_abc')" ]
  [[ "${stderr}" == *"cluster apiserver https://10.0.0.10:6443"* ]]
  [[ "${stderr}" == *"HAMi publishes the GPU capacity of every GPU node: gpu-1 nvidia.com/gpu=4 nvidia.com/gpumem=81920, gpu-2"* ]]
  [[ "${stderr}" == *"next step: deploy the cluster-worker"* ]]
  [[ "${stderr}" == *"completed"* ]]
}

@test "labelled GPU nodes are left alone and the nodes without a mode are named" {
  attach
  [ "${status}" -eq 0 ]
  run ! grep -q -- " label " "${LOG}"
  [[ "${stderr}" == *"GPU nodes: gpu-1 gpu-2"* ]]
  [[ "${stderr}" == *"node gpu-1: gpu=on already, gshare.io/gpu-mode=exclusive kept (--gpu-mode fractional is only for nodes without a mode)"* ]]
  [[ "${stderr}" == *"node gpu-2: gpu=on already, gshare.io/gpu-mode=fractional already"* ]]
  [[ "${stderr}" == *"nodes without gshare.io/gpu-mode: master-c2"* ]]
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
  foreign_ingress_on master-c2
  attach --skip-ingress --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml" --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "ingress-nginx/ingress-nginx" "${LOG}"
  [[ "${stderr}" == *"ingress-nginx: skipped (--skip-ingress)"* ]]
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
  for server in https://127.0.0.1:6443 https://127.0.1.1:6443 https://localhost:6443 https://LOCALHOST https://[::1]:6443 https://0.0.0.0:6443; do
    sed -i "s#^\( *server: \).*#\1${server}#" "${KUBECONFIG_FILE}"
    : >"${LOG}"
    attach
    [ "${status}" -eq 1 ]
    [[ "${stderr}" == *"server: ${server} is a loopback address"* ]]
    [[ "${stderr}" == *"reachable from the control plane"* ]]
    [[ "${stderr}" == *"open 6443/tcp from the control plane"* ]]
    run ! grep -q -- "/readyz" "${LOG}"
    nothing_changed
  done
}

@test "a server: that only looks like loopback is accepted" {
  sed -i 's#https://10.0.0.10:6443#https://127-0-0-1.lab.example.com:6443#' "${KUBECONFIG_FILE}"
  attach --no-wait
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"cluster apiserver https://127-0-0-1.lab.example.com:6443"* ]]
}

@test "an unreachable apiserver is refused with the guide's advice before anything is installed" {
  touch "${STATE}/unreachable"
  attach
  [ "${status}" -eq 1 ]
  grep -q -- "kubectl --kubeconfig ${KUBECONFIG_FILE} get --raw /readyz --request-timeout=10s" "${LOG}"
  [[ "${stderr}" == *"the apiserver https://10.0.0.10:6443 does not answer"* ]]
  [[ "${stderr}" == *"dial tcp 10.0.0.10:6443: i/o timeout"* ]]
  [[ "${stderr}" == *"reachable from the control plane"* ]]
  [[ "${stderr}" == *"open 6443/tcp from the control plane"* ]]
  nothing_changed
}

@test "a kubeconfig without a current context is refused" {
  touch "${STATE}/no-context"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"has no usable current context"* ]]
  [[ "${stderr}" == *"config use-context"* ]]
  nothing_changed
}

@test "bad arguments print the usage, exit 2 and touch nothing" {
  for args in "" "--name lab-c2" "--bogus" "--kubeconfig /nonexistent --name a --control-plane https://x.example.com --session-domain d.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name Lab_C2 --control-plane https://x.example.com --session-domain d.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name lab --control-plane gshare.example.com --session-domain d.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name lab --control-plane https://x.example.com" \
      "--kubeconfig ${KUBECONFIG_FILE} --name lab --control-plane https://x.example.com --session-domain d.example.com --gpu-mode shared" \
      "--kubeconfig ${KUBECONFIG_FILE} --name lab --control-plane https://x.example.com --session-domain d.example.com --gpu-nodes"; do
    # shellcheck disable=SC2086 # split on purpose
    run --separate-stderr "${SCRIPT}" ${args}
    [ "${status}" -eq 2 ]
    [[ "${stderr}" == *"Usage: hack/attach-cluster.sh"* ]]
    [[ "${stderr}" == *"--skip-node-checks"* ]]
  done
  [ ! -s "${LOG}" ]
}

@test "--help prints the whole usage and exits 0" {
  run --separate-stderr "${SCRIPT}" --help
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == "Usage: hack/attach-cluster.sh"* ]]
  [[ "${stderr}" == *"--gpu-mode         the gshare.io/gpu-mode"* ]]
  [[ "${stderr}" == *"attached again, not refused." ]]
  [ ! -s "${LOG}" ]
}

@test "--storage-values checks every node's NFS client and registers the values' StorageClass with the cluster" {
  csi_values
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml" --no-wait
  [ "${status}" -eq 0 ]
  for node in gpu-1 gpu-2 master-c2 cpu-1; do
    grep -q -- "debug node/${node} --namespace default --image busybox:1.36 --profile sysadmin .*nfs-client" "${LOG}"
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
  nothing_changed
}

@test "--skip-nfs-check attaches without asking the nodes for their NFS client" {
  csi_values
  touch "${STATE}/no-nfs-gpu-2"
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml" --skip-nfs-check --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "nfs-client" "${LOG}"
}

@test "storage values that name no StorageClass are a usage error that changes nothing" {
  printf 'driver: zfs-generic-nfs\n' >"${BATS_TEST_TMPDIR}/csi-values.yaml"
  attach --storage-values "${BATS_TEST_TMPDIR}/csi-values.yaml"
  [ "${status}" -eq 2 ]
  [[ "${stderr}" == *"names no StorageClass"* ]]
  [[ "${stderr}" == *"Usage:"* ]]
  [ ! -s "${LOG}" ]
}

@test "every GPU node, and only those, is checked for nvidia-smi, nvidia-ctk and containerd's nvidia runtime" {
  attach --no-wait
  [ "${status}" -eq 0 ]
  for node in gpu-1 gpu-2; do
    grep -q -- "debug node/${node} --namespace default --image busybox:1.36 --profile sysadmin --quiet --attach=true -- chroot /host sh -c .*nvidia-smi .*nvidia-ctk --version.*containerd config dump" "${LOG}"
    [[ "${stderr}" == *"node ${node}: nvidia-smi, nvidia-ctk and containerd's nvidia runtime work"* ]]
  done
  run ! grep -qE -- "debug node/(master-c2|cpu-1)" "${LOG}"
  grep -q -- "delete --namespace default --ignore-not-found --wait=false pod/node-debugger-gpu-1-x7k2p" "${LOG}"
}

@test "NODE_CHECK_IMAGE is the image of the GPU node checks" {
  NODE_CHECK_IMAGE=registry.lan:5000/busybox:1.36 attach --no-wait
  [ "${status}" -eq 0 ]
  grep -q -- "debug node/gpu-1 --namespace default --image registry.lan:5000/busybox:1.36 " "${LOG}"
}

@test "a GPU node without a working nvidia-smi is named with prereqs --gpu, before anything is installed" {
  touch "${STATE}/no-smi-gpu-2"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"node gpu-2: nvidia-smi fails (no working NVIDIA driver): on gpu-2 run sudo ./hack/cluster-bootstrap.sh prereqs --gpu, then reboot it"* ]]
  [[ "${stderr}" == *"GPU node checks failed on: gpu-2 (1 problem(s)"* ]]
  [[ "${stderr}" == *"--skip-node-checks"* ]]
  nothing_changed
}

@test "a GPU node without nvidia-ctk is named with prereqs --gpu" {
  touch "${STATE}/no-ctk-gpu-1"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"node gpu-1: nvidia-ctk --version fails (no NVIDIA container toolkit): on gpu-1 run sudo ./hack/cluster-bootstrap.sh prereqs --gpu"* ]]
  [[ "${stderr}" == *"GPU node checks failed on: gpu-1 "* ]]
  nothing_changed
}

@test "a GPU node whose containerd has no nvidia runtime is named with nvidia-ctk runtime configure" {
  touch "${STATE}/no-runtime-gpu-1"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"node gpu-1: containerd has no nvidia runtime"* ]]
  [[ "${stderr}" == *"run sudo nvidia-ctk runtime configure --runtime=containerd && sudo systemctl restart containerd"* ]]
  nothing_changed
}

@test "the failures of every GPU node are printed together before the attach stops" {
  touch "${STATE}/no-smi-gpu-1" "${STATE}/no-ctk-gpu-1" "${STATE}/no-runtime-gpu-2" "${STATE}/no-debug-gpu-3"
  printf 'gpu-3|on|fractional|true||gpu-3||InternalIP=10.0.0.23 \n' >>"${STATE}/nodes"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"node gpu-1: nvidia-smi fails"* ]]
  [[ "${stderr}" == *"node gpu-1: nvidia-ctk --version fails"* ]]
  [[ "${stderr}" == *"node gpu-2: containerd has no nvidia runtime"* ]]
  [[ "${stderr}" == *"node gpu-3: could not be checked"* ]]
  [[ "${stderr}" == *"GPU node checks failed on: gpu-1 gpu-2 gpu-3 (4 problem(s)"* ]]
  grep -q -- "debug node/gpu-3 " "${LOG}"
  nothing_changed
}

@test "--skip-node-checks attaches without asking the GPU nodes" {
  touch "${STATE}/no-smi-gpu-2"
  attach --skip-node-checks --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "debug node/" "${LOG}"
  [[ "${stderr}" == *"GPU node checks: skipped (--skip-node-checks)"* ]]
}

@test "the Temporal gateway is asked from a pod in the cluster, over TLS on the control plane's host:443, before any install" {
  attach --no-wait
  [ "${status}" -eq 0 ]
  grep -qF -- "kubectl --kubeconfig ${KUBECONFIG_FILE} --namespace default run gshare-temporal-check --image curlimages/curl:8.11.1 --restart=Never --rm --attach" "${LOG}"
  grep -qE -- "run gshare-temporal-check .* curl .* --http2 -H content-type: application/grpc .*https://gshare.example.com:443/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo$" "${LOG}"
  [[ "${stderr}" == *"the Temporal gateway gshare.example.com:443 answers gRPC from inside the cluster (grpc-status 16)"* ]]
  [ "$(line_of 'debug node/gpu-2')" -lt "$(line_of 'gshare-temporal-check')" ]
  [ "$(line_of 'gshare-temporal-check')" -lt "$(line_of 'runtimeclass-nvidia')" ]
  grep -q -- "delete pod gshare-temporal-check --ignore-not-found --wait=false" "${LOG}"
}

@test "--temporal-address names the gateway; plaintext h2c on a port other than 443; TEMPORAL_CHECK_IMAGE is the pod's image" {
  TEMPORAL_CHECK_IMAGE=registry.lan:5000/curl:8 attach --temporal-address internal.example.com:7243 --no-wait
  [ "${status}" -eq 0 ]
  grep -qE -- "run gshare-temporal-check --image registry.lan:5000/curl:8 .* --http2-prior-knowledge .*http://internal.example.com:7243/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo$" "${LOG}"
  run ! grep -q -- "gshare.example.com:443" "${LOG}"
  # An http control plane: its host on 80.
  : >"${LOG}"
  run --separate-stderr "${SCRIPT}" --kubeconfig "${KUBECONFIG_FILE}" --name lab-c2 --control-plane http://GShare.example.com:8080 \
    --session-domain gshare.lab-c2.example.com --no-wait
  [ "${status}" -eq 0 ]
  grep -qE -- "--http2-prior-knowledge .*http://gshare.example.com:80/temporal.api" "${LOG}"
}

@test "a Temporal gateway that does not answer stops the attach with what to open, before anything is installed" {
  echo timeout >"${STATE}/temporal-gateway"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"the control plane's Temporal gateway gshare.example.com:443 does not answer gRPC from inside the cluster (no answer: curl: (28) Connection timed out"* ]]
  [[ "${stderr}" == *"reaches Temporal only through it"* ]]
  [[ "${stderr}" == *"--set temporalGateway.enabled=true --set ingress.internalPlane.enabled=true --set ingress.internalPlane.sourceRange="* ]]
  [[ "${stderr}" == *"the Ingress gshare-temporal-gateway (backend-protocol GRPC)"* ]]
  [[ "${stderr}" == *"--skip-temporal-check"* ]]
  nothing_changed
  grep -q -- "delete pod gshare-temporal-check --ignore-not-found --wait=false" "${LOG}"

  echo 403 >"${STATE}/temporal-gateway"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"Temporal gateway gshare.example.com:443 does not answer gRPC from inside the cluster (HTTP 403: ingress.internalPlane.sourceRange does not take this cluster's address"* ]]
  echo 404 >"${STATE}/temporal-gateway"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"(HTTP 404: nothing routes the WorkflowService path there (no Ingress gshare-temporal-gateway))"* ]]
  echo 200 >"${STATE}/temporal-gateway"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"(HTTP 200 without a grpc-status: not the gateway's gRPC)"* ]]
  nothing_changed
}

@test "--skip-temporal-check attaches without asking the Temporal gateway" {
  echo timeout >"${STATE}/temporal-gateway"
  attach --skip-temporal-check --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "gshare-temporal-check" "${LOG}"
  [[ "${stderr}" == *"Temporal gateway check: skipped (--skip-temporal-check)"* ]]
}

@test "a bad --temporal-address prints the usage, exits 2 and touches nothing" {
  for address in gshare.example.com https://gshare.example.com:443 gshare.example.com:0 gshare.example.com:65536 \
      gshare.example.com:44a :443 "gshare example.com:443" -gshare.example.com:443; do
    attach --temporal-address "${address}"
    [ "${status}" -eq 2 ]
    [[ "${stderr}" == *"--temporal-address takes HOST:PORT (e.g. gshare.example.com:443), not ${address}"* ]]
    [[ "${stderr}" == *"Usage: hack/attach-cluster.sh"* ]]
    [[ "${stderr}" == *"--temporal-address HOST:PORT"* ]]
  done
  attach --temporal-address
  [ "${status}" -eq 2 ]
  [[ "${stderr}" == *"--temporal-address needs a value"* ]]
  [ ! -s "${LOG}" ]
  # IPv6, bracketed, is an address.
  attach --temporal-address "[fd00::10]:443" --no-wait
  [ "${status}" -eq 0 ]
  grep -q -- "https://\[fd00::10\]:443/temporal.api" "${LOG}"
}

@test "unlabelled GPU nodes (gpu.present, GPU capacity, gpu=on) get gpu=on and --gpu-mode; CPU nodes are left alone" {
  cat >"${STATE}/nodes" <<'NODES'
gpu-a|||true||gpu-a||InternalIP=10.0.0.41 
gpu-b|||||gpu-b||InternalIP=10.0.0.42 
gpu-c|on||||gpu-c||InternalIP=10.0.0.43 
gpu-d|off|fractional|||gpu-d||InternalIP=10.0.0.44 
master-c2|||||master-c2||InternalIP=10.0.0.10 
cpu-1|on|cpu|true|2|cpu-1||InternalIP=10.0.0.31 
NODES
  sed -i 's#^gpu-b|||||#gpu-b||||2|#' "${STATE}/nodes"
  attach --gpu-mode exclusive --no-wait
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"GPU nodes: gpu-a gpu-b gpu-c gpu-d"* ]]
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-a gpu=on" "${LOG}"
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-a gshare.io/gpu-mode=exclusive" "${LOG}"
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-b gpu=on" "${LOG}"
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-c gshare.io/gpu-mode=exclusive" "${LOG}"
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-d gpu=on --overwrite" "${LOG}"
  run ! grep -q -- "label node gpu-c gpu=on" "${LOG}"
  run ! grep -q -- "label node gpu-d gshare.io/gpu-mode" "${LOG}"
  run ! grep -qE -- "label node (master-c2|cpu-1)" "${LOG}"
  run ! grep -q -- "--overwrite.*gpu-mode\|gpu-mode.*--overwrite" "${LOG}"
  [[ "${stderr}" == *"node gpu-a: labelled gpu=on, labelled gshare.io/gpu-mode=exclusive"* ]]
  [[ "${stderr}" == *"node gpu-d: gpu=off changed to gpu=on"* ]]
  [ "$(line_of 'label node gpu-a')" -lt "$(line_of 'install hami')" ]
  grep -q '^gpu-a|on|exclusive|' "${STATE}/nodes"
  grep -q '^gpu-d|on|fractional|' "${STATE}/nodes"
}

@test "a GPU mode already set is never overwritten, whatever --gpu-mode says" {
  sed -i 's#^gpu-1|on|exclusive|#gpu-1||exclusive|#' "${STATE}/nodes"
  attach --gpu-mode fractional --no-wait
  [ "${status}" -eq 0 ]
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-1 gpu=on" "${LOG}"
  run ! grep -q -- "label node gpu-1 gshare.io/gpu-mode" "${LOG}"
  run ! grep -q -- "gshare.io/gpu-mode=.*--overwrite" "${LOG}"
  grep -q '^gpu-1|on|exclusive|' "${STATE}/nodes"
  [[ "${stderr}" == *"node gpu-1: labelled gpu=on, gshare.io/gpu-mode=exclusive kept (--gpu-mode fractional is only for nodes without a mode)"* ]]
}

@test "--gpu-nodes names the GPU nodes; unknown or non-GPU nodes in it are refused before anything changes" {
  sed -i 's#^gpu-2|on|fractional|true||#gpu-2|||||#' "${STATE}/nodes"
  attach --gpu-nodes gpu-2 --no-wait
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"GPU nodes: gpu-2"* ]]
  run ! grep -q -- "debug node/gpu-1" "${LOG}"
  grep -qx -- "kubectl --kubeconfig ${KUBECONFIG_FILE} label node gpu-2 gshare.io/gpu-mode=fractional" "${LOG}"

  : >"${LOG}"
  attach --gpu-nodes gpu-1,gpu-9
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"--gpu-nodes names nodes the cluster does not have: gpu-9"* ]]
  nothing_changed

  attach --gpu-nodes gpu-1,cpu-1
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"nodes labelled as non-GPU nodes: cpu-1(gshare.io/gpu-mode=cpu)"* ]]
  nothing_changed
}

@test "a cluster without any GPU node is refused with how to name them" {
  sed -i -e 's#^gpu-1|on|exclusive|true|#gpu-1||||#' -e 's#^gpu-2|on|fractional|true|#gpu-2||||#' "${STATE}/nodes"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"found no GPU node among gpu-1 gpu-2 master-c2 cpu-1"* ]]
  [[ "${stderr}" == *"--gpu-nodes NODE,..."* ]]
  nothing_changed
}

@test "HAMi's capacity is waited for, with progress, before ingress-nginx and the registration" {
  echo 3 >"${STATE}/capacity-after"
  attach --no-wait
  [ "${status}" -eq 0 ]
  # The capacity appears at the third poll.
  [ "$(grep -c -- 'node-nvidia-register' "${LOG}")" -eq 3 ]
  [[ "${stderr}" == *"waiting for HAMi to publish nvidia.com/gpu and nvidia.com/gpumem on: gpu-1 gpu-2 (1/60)"* ]]
  [[ "${stderr}" == *"(2/60)"* ]]
  [[ "${stderr}" != *"(3/60)"* ]]
  [ "$(line_of 'node-nvidia-register')" -lt "$(line_of 'install ingress-nginx')" ]
  [[ "${stderr}" == *"HAMi publishes the GPU capacity of every GPU node"* ]]
}

@test "GPU memory HAMi registered on the node counts when it publishes no nvidia.com/gpumem capacity" {
  touch "${STATE}/register-only-gpu-2"
  attach --no-wait
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"gpu-2 nvidia.com/gpu=4 nvidia.com/gpumem=81920"* ]]
}

@test "GPU capacity that never appears names the nodes and the device plugin to check, and registers nothing" {
  touch "${STATE}/no-capacity-gpu-2"
  HAMI_WAIT_TRIES=3 attach
  [ "${status}" -eq 1 ]
  [ "$(grep -c -- 'node-nvidia-register' "${LOG}")" -eq 3 ]
  [[ "${stderr}" == *"waiting for HAMi to publish nvidia.com/gpu and nvidia.com/gpumem on: gpu-2 (2/3)"* ]]
  [[ "${stderr}" == *"no nvidia.com/gpu or nvidia.com/gpumem on: gpu-2 after 3 tries"* ]]
  [[ "${stderr}" == *"-n kube-system get pods -l app.kubernetes.io/component=hami-device-plugin -o wide"* ]]
  [[ "${stderr}" == *"logs ds/hami-device-plugin -c device-plugin"* ]]
  [[ "${stderr}" == *"HAMI_WAIT_TRIES"* ]]
  run ! grep -q -- "install ingress-nginx" "${LOG}"
  run ! grep -q -- "^curl" "${LOG}"
}

@test "a failed install says what to check and registers nothing" {
  touch "${STATE}/helm-fails-hami"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"installing HAMi failed (helm above)"* ]]
  [[ "${stderr}" == *"kube-scheduler image v1.36.2 pullable"* ]]
  run ! grep -q -- "^curl" "${LOG}"
  rm "${STATE}/helm-fails-hami"
  touch "${STATE}/helm-fails-ingress-nginx"
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"installing ingress-nginx failed (helm above)"* ]]
  [[ "${stderr}" == *"can its controller run on master-c2?"* ]]
  run ! grep -q -- "^curl" "${LOG}"
}

@test "ingress-nginx is pinned to --ingress-node, tolerating its taints, and the DNS reminder names its address" {
  attach --no-wait
  [ "${status}" -eq 0 ]
  grep -qF -- "upgrade --install ingress-nginx ingress-nginx/ingress-nginx --namespace ingress-nginx --create-namespace -f ${REPO_ROOT}/deploy/addons/ingress-nginx-values.yaml --set-string controller.nodeSelector.kubernetes\\.io/hostname=master-c2 --set controller.tolerations[0].key=node-role.kubernetes.io/control-plane --set controller.tolerations[0].operator=Exists --set controller.tolerations[0].effect=NoSchedule --wait" "${LOG}"
  grep -q -- "get pods --all-namespaces -l app.kubernetes.io/name=ingress-nginx,app.kubernetes.io/component=controller" "${LOG}"
  [[ "${stderr}" == *"ingress-nginx controller ingress-nginx/ingress-nginx-controller-5d8f runs on master-c2"* ]]
  [[ "${stderr}" == *"DNS: gshare.lab-c2.example.com must resolve to master-c2 (InternalIP 10.0.0.10, ExternalIP 203.0.113.10)"* ]]
}

@test "without --ingress-node ingress-nginx is not pinned and the DNS reminder says where the domain must point" {
  run --separate-stderr "${SCRIPT}" --kubeconfig "${KUBECONFIG_FILE}" --name lab-c2 \
    --control-plane https://gshare.example.com --session-domain gshare.lab-c2.example.com --no-wait
  [ "${status}" -eq 0 ]
  grep -q -- "upgrade --install ingress-nginx ingress-nginx/ingress-nginx .*ingress-nginx-values.yaml --wait" "${LOG}"
  run ! grep -q -- "nodeSelector" "${LOG}"
  [[ "${stderr}" == *"DNS: gshare.lab-c2.example.com must resolve to a node running the ingress-nginx controller"* ]]
}

@test "an ingress-nginx this script did not install is detected and not installed over" {
  foreign_ingress_on master-c2
  attach --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "upgrade --install ingress-nginx" "${LOG}"
  [[ "${stderr}" == *"ingress-nginx: found one this script did not install: IngressClass nginx (controller k8s.io/ingress-nginx, not installed by Helm), Deployment ingress-nginx/ingress-nginx-controller (not installed by Helm); not installing over it"* ]]
  [[ "${stderr}" == *"runs on master-c2"* ]]
}

@test "another Helm release of ingress-nginx is foreign too" {
  echo 'k8s.io/ingress-nginx|nginx|edge' >"${STATE}/ingressclass"
  echo 'DaemonSet edge/nginx-ingress-nginx-controller|nginx|edge' >"${STATE}/ingress-workloads"
  echo "edge/nginx-ingress-nginx-controller-x|master-c2|Running" >"${STATE}/ingress-pods"
  attach --no-wait
  [ "${status}" -eq 0 ]
  run ! grep -q -- "upgrade --install ingress-nginx" "${LOG}"
  [[ "${stderr}" == *"DaemonSet edge/nginx-ingress-nginx-controller (Helm release edge/nginx)"* ]]
}

@test "an ingress controller that does not run on --ingress-node stops the attach with how to pin it" {
  foreign_ingress_on cpu-1
  attach
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"no ingress-nginx controller runs on --ingress-node master-c2 (controller pods: ingress-nginx/ingress-nginx-controller-7c9 on cpu-1 (Running))"* ]]
  [[ "${stderr}" == *"session domain gshare.lab-c2.example.com must point at master-c2"* ]]
  [[ "${stderr}" == *"controller.nodeSelector kubernetes.io/hostname=master-c2"* ]]
  run ! grep -q -- "^curl" "${LOG}"
}

@test "--skip-ingress still wants the controller on --ingress-node" {
  attach --skip-ingress
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"no ingress-nginx controller runs on --ingress-node master-c2 (controller pods: none)"* ]]
  run ! grep -q -- "^curl" "${LOG}"
}

@test "an --ingress-node the cluster does not have is refused before anything changes" {
  attach --ingress-node master-c9
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"--ingress-node master-c9 is not a node of this cluster (its nodes: gpu-1 gpu-2 master-c2 cpu-1)"* ]]
  nothing_changed
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
  [[ "${stderr}" == *"DNS: gshare.lab-c2.example.com must resolve to the address of the Gateway envoy-gateway-system/gshare"* ]]
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

@test "two runs in a row on a fresh cluster: the second changes nothing the first set and makes the same installs" {
  cat >"${STATE}/nodes" <<'NODES'
gpu-1|||true||gpu-1||InternalIP=10.0.0.21 
gpu-2|||true||gpu-2||InternalIP=10.0.0.22 
master-c2|||||master-c2|node-role.kubernetes.io/control-plane:NoSchedule |InternalIP=10.0.0.10 
NODES
  attach --gpu-mode exclusive
  [ "${status}" -eq 0 ]
  [ "$(grep -c -- ' label node ' "${LOG}")" -eq 4 ]
  cp "${STATE}/nodes" "${BATS_TEST_TMPDIR}/nodes.first"
  grep -E '^helm| apply ' "${LOG}" >"${BATS_TEST_TMPDIR}/installs.first"
  grep -q -- "upgrade --install ingress-nginx" "${BATS_TEST_TMPDIR}/installs.first"

  touch "${STATE}/registered"
  rm -f "${STATE}/polls"
  : >"${LOG}"
  attach --gpu-mode exclusive
  [ "${status}" -eq 0 ]
  [ "${output}" = "clu_abc" ]
  run ! grep -q -- " label " "${LOG}"
  cmp "${STATE}/nodes" "${BATS_TEST_TMPDIR}/nodes.first"
  grep -E '^helm| apply ' "${LOG}" | diff - "${BATS_TEST_TMPDIR}/installs.first"
  [[ "${stderr}" == *"node gpu-1: gpu=on already, gshare.io/gpu-mode=exclusive already"* ]]
  [[ "${stderr}" != *"found one this script did not install"* ]]
  [[ "${stderr}" == *"runs on master-c2"* ]]
}

@test "a re-run while the attach still runs follows that attach" {
  touch "${STATE}/registered" "${STATE}/attach-running"
  attach
  [ "${status}" -eq 0 ]
  [[ "${stderr}" == *"an attach of clu_abc is already running: following it"* ]]
  grep -q -- "/api/v1/operations/cluster-attach-clu_abc" "${LOG}"
}
