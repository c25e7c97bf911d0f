#!/usr/bin/env bats
# up: the seven steps over SSH from a control machine, then the storage node and the registry trust.
# ssh and scp are stubs: the remote cluster-bootstrap.sh runs are recorded, not executed.

load helpers

JOIN="kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:0123abcd"
M=ubuntu@10.0.0.10
G1=ubuntu@10.0.0.11
G2=ubuntu@10.0.0.12
C1=ubuntu@10.0.0.20
S1=ubuntu@10.0.0.30

setup() {
  common_setup
  cat >"${CLUSTER_INFO}" <<EOF
# test cluster
MASTER_NODE=${M}
WORKER_NODES=${G1}:exclusive, ${G2}
CPU_WORKERS=${C1}
SSH_OPTS="-i /keys/id_ed25519 -o StrictHostKeyChecking=accept-new"   # options
EOF
}

# remote <node> <subcommand args ERE>: an ssh call running cluster-bootstrap.sh on the node.
remote() {
  printf '^ssh -i /keys/id_ed25519 -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o ConnectTimeout=10 %s sudo env .* bash gshare-bootstrap/hack/cluster-bootstrap\\.sh %s$' \
    "${1//./\\.}" "$2"
}

@test "up: the seven steps in order on the right nodes" {
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  # 0: the script (and the deploy/ files it uses) is copied to every node first.
  local node
  for node in "${M}" "${G1}" "${G2}" "${C1}"; do
    assert_call "scp -q -i /keys/id_ed25519 -o StrictHostKeyChecking=accept-new ${SCRIPT} ${node}:gshare-bootstrap/hack/cluster-bootstrap.sh"
    assert_call "scp -q -r -i /keys/id_ed25519 -o StrictHostKeyChecking=accept-new ${REPO_ROOT}/deploy/addons ${REPO_ROOT}/deploy/storage ${REPO_ROOT}/deploy/registry ${node}:gshare-bootstrap/deploy/"
  done
  # 1: prereqs; control plane and CPU worker plain, GPU workers --gpu.
  assert_called "$(remote "${M}" 'prereqs')"
  assert_called "$(remote "${C1}" 'prereqs')"
  assert_called "$(remote "${G1}" 'prereqs --gpu')"
  assert_called "$(remote "${G2}" 'prereqs --gpu')"
  assert_not_called "$(remote "${C1}" 'prereqs --gpu')"
  assert_not_called "$(remote "${M}" 'prereqs --gpu')"
  # 3..7 in order, after every copy and every prereqs.
  assert_order "^scp .*${C1}:gshare-bootstrap/deploy/" "$(remote "${M}" prereqs)"
  local last_prereqs
  last_prereqs="$(last_line_of '^ssh-done .* prereqs')"
  [ "${last_prereqs}" -lt "$(line_of "$(remote "${M}" init)")" ]
  local qjoin
  qjoin="$(printf '%q' "${JOIN}")"
  for node in "${G1}" "${G2}" "${C1}"; do
    assert_called "$(remote "${node}" "join ${qjoin//\\/\\\\}")"
  done
  assert_not_called "$(remote "${M}" 'join.*')"
  [ "$(last_line_of '^ssh-done .* join')" -lt "$(line_of "$(remote "${M}" addons)")" ]
  assert_order "$(remote "${M}" init)" "$(remote "${M}" addons)" \
    "$(remote "${M}" 'label node-10-0-0-10 cpu')" "$(remote "${M}" verify)"
  # 6: labels from cluster-info (hostnames, lowercased).
  assert_called "$(remote "${M}" 'label node-10-0-0-20 cpu')"
  assert_called "$(remote "${M}" 'label node-10-0-0-11 exclusive')"
  assert_called "$(remote "${M}" 'label node-10-0-0-12 fractional')"
  [ "$(count_calls "$(remote "${M}" 'label .*')")" -eq 4 ]
  [ "$(last_line_of "$(remote "${M}" 'label .*')")" -lt "$(line_of "$(remote "${M}" verify)")" ]
  # 7: verify waits for the pods (VERIFY_WAIT_TRIES=60 on the control plane).
  assert_called "^ssh .* ${M//./\\.} sudo env .* VERIFY_WAIT_TRIES=60 VERIFY_WAIT_INTERVAL=10 bash .* verify$"
  # Nothing rebooted, no storage node, no registry.
  assert_not_called 'sudo reboot|cluster-bootstrap\.sh (storage|storage-csi|registry)|^ssh-keygen'
  grep -q '== 7/7 verify' <<<"${stderr}"
}

@test "up: prereqs of all nodes start before any finishes, and all finish before init (parallel phase)" {
  echo 0.5 >"${STUB_STATE}/sleep"
  run "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  local first_done last_start
  first_done="$(line_of '^ssh-done .* prereqs')"
  last_start="$(last_line_of 'cluster-bootstrap\.sh prereqs')"
  [ "${last_start}" -lt "${first_done}" ] || {
    echo "prereqs ran one after the other" >&2
    show_calls
    return 1
  }
  [ "$(count_calls 'cluster-bootstrap\.sh prereqs')" -eq 4 ]
  [ "$(last_line_of '^ssh-done .* prereqs')" -lt "$(line_of 'cluster-bootstrap\.sh init')" ]
}

@test "up: joins of all workers start before any finishes, after init and before addons (parallel phase)" {
  echo 0.5 >"${STUB_STATE}/sleep"
  run "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  [ "$(last_line_of 'cluster-bootstrap\.sh join')" -lt "$(line_of '^ssh-done .* join')" ]
  [ "$(count_calls 'cluster-bootstrap\.sh join')" -eq 3 ]
  [ "$(line_of '^ssh-done .* init')" -lt "$(line_of 'cluster-bootstrap\.sh join')" ]
  [ "$(last_line_of '^ssh-done .* join')" -lt "$(line_of 'cluster-bootstrap\.sh addons')" ]
}

@test "up: a GPU worker with a new driver is rebooted and waited for (new boot_id, working nvidia-smi)" {
  touch "${STUB_STATE}/newdriver.${G1}"
  printf 'b-old\nb-old\nb-new\n' >"${STUB_STATE}/boot_id.${G1}"
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  local g1="${G1//./\\.}"
  assert_order '^ssh-done .* prereqs' "^ssh .* ${g1} sudo reboot$" \
    "^ssh .* ${g1} cat /proc/sys/kernel/random/boot_id$" "^ssh .* ${g1} nvidia-smi$" 'cluster-bootstrap\.sh init'
  # Polled until the boot_id changed: b-old, b-old, then b-new.
  [ "$(count_calls "^ssh .* ${g1} cat /proc/sys/kernel/random/boot_id$")" -eq 3 ]
  [ "$(count_calls "^ssh .* ${g1} nvidia-smi$")" -eq 1 ]
  [ "$(last_line_of 'sudo reboot|boot_id$|nvidia-smi$')" -lt "$(line_of 'cluster-bootstrap\.sh init')" ]
  # Only the worker that reported a new driver.
  [ "$(count_calls 'sudo reboot$')" -eq 1 ]
  grep -q "back with boot_id b-new" <<<"${stderr}"
}

@test "up: the reboot wait times out after REBOOT_WAIT_TRIES and stops, naming node and step" {
  touch "${STUB_STATE}/newdriver.${G2}"
  echo b-old >"${STUB_STATE}/boot_id.${G2}"
  REBOOT_WAIT_TRIES=4 run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 1 ]
  [ "$(count_calls "^ssh .* ${G2//./\\.} cat /proc/sys/kernel/random/boot_id$")" -eq 4 ]
  grep -q "node ${G2}: step reboot failed: no new boot_id with a working nvidia-smi after 4 tries" <<<"${stderr}"
  grep -q "boot_id unchanged" <<<"${stderr}"
  assert_not_called 'cluster-bootstrap\.sh (init|join|addons)'
}

@test "up: a new boot_id with a broken nvidia-smi still times out" {
  touch "${STUB_STATE}/newdriver.${G1}" "${STUB_STATE}/nvidia-smi-broken.${G1}"
  printf 'b-old\nb-new\n' >"${STUB_STATE}/boot_id.${G1}"
  REBOOT_WAIT_TRIES=3 run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 1 ]
  # Try 1 still sees b-old; tries 2 and 3 see b-new and ask nvidia-smi, which fails.
  [ "$(count_calls "^ssh .* ${G1//./\\.} nvidia-smi$")" -eq 2 ]
  grep -q "boot_id changed but nvidia-smi fails" <<<"${stderr}"
  assert_not_called 'cluster-bootstrap\.sh init'
}

@test "up: a failing node stops the run after its phase and names the node and the step" {
  touch "${STUB_STATE}/fail.${C1}.prereqs"
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 1 ]
  grep -q "node ${C1}: step prereqs failed" <<<"${stderr}"
  grep -q "step prereqs failed on: ${C1}" <<<"${stderr}"
  # The other nodes' prereqs ran (same phase); nothing after the phase did.
  [ "$(count_calls 'cluster-bootstrap\.sh prereqs')" -eq 4 ]
  assert_not_called 'sudo reboot|cluster-bootstrap\.sh (init|join|addons|label|verify)'
}

@test "up: a failing join stops before addons" {
  touch "${STUB_STATE}/fail.${G2}.join"
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 1 ]
  grep -q "node ${G2}: step join failed" <<<"${stderr}"
  assert_not_called 'cluster-bootstrap\.sh (addons|label|verify)'
}

@test "up: a failing scp stops before any prereqs" {
  touch "${STUB_STATE}/fail.scp"
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 1 ]
  grep -q "node ${M}: step copy failed" <<<"${stderr}"
  assert_not_called 'sudo env'
  [ "$(count_calls '^scp')" -eq 1 ]
}

@test "up: a failing init stops before the joins" {
  touch "${STUB_STATE}/fail.${M}.init"
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 1 ]
  grep -q "node ${M}: step init failed" <<<"${stderr}"
  assert_not_called 'cluster-bootstrap\.sh join'
}

@test "up: STORAGE_NODE runs storage with a generated key, storage-csi on the control plane, label storage" {
  echo "STORAGE_NODE=${S1}:/dev/vdb" >>"${CLUSTER_INFO}"
  run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  # The storage node is prepared and joined like a CPU worker, but labelled storage only.
  assert_called "$(remote "${S1}" prereqs)"
  assert_called "$(remote "${S1}" 'join .*')"
  assert_not_called "$(remote "${M}" 'label node-10-0-0-30 cpu')"
  local key="${STORAGE_CSI_KEY_FILE}"
  [ -f "${key}" ] && [ -f "${key}.pub" ]
  assert_order "$(remote "${M}" verify)" \
    "^ssh-keygen -q -t rsa -b 4096 -m PEM -N  -C gshare-csi -f ${key}$" \
    "^ssh .* ${S1//./\\.} sudo env .*STORAGE_CSI_PUBKEY=ssh-rsa\\\\ AAAAB3NzaC1yc2Estub\\\\ gshare-csi bash gshare-bootstrap/hack/cluster-bootstrap\\.sh storage /dev/vdb$" \
    "^scp -q -i /keys/id_ed25519 -o StrictHostKeyChecking=accept-new ${key} ${M}:gshare-bootstrap/hack/storage-csi-key$" \
    "$(remote "${M}" 'storage-csi 10\.0\.0\.30 gshare-bootstrap/hack/storage-csi-key')" \
    "^ssh .* ${M//./\\.} rm -f gshare-bootstrap/hack/storage-csi-key$" \
    "$(remote "${M}" 'label node-10-0-0-30 storage')"
  # A second run reuses the key pair.
  : >"${STUB_LOG}"
  run "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  assert_not_called '^ssh-keygen'
}

@test "up: LOCAL_REGISTRY in cluster-info reaches prereqs and ends with registry trust on every node" {
  printf 'LOCAL_REGISTRY=10.0.0.30:5000\nLOCAL_REGISTRY_MIRROR="10.0.0.30:5001"\n' >>"${CLUSTER_INFO}"
  run "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  local node
  for node in "${M}" "${G1}" "${G2}" "${C1}"; do
    assert_called "^ssh .* ${node//./\\.} sudo env .*LOCAL_REGISTRY=10\\.0\\.0\\.30:5000 LOCAL_REGISTRY_MIRROR=10\\.0\\.0\\.30:5001 .*cluster-bootstrap\\.sh registry$"
    assert_called "^ssh .* ${node//./\\.} sudo env .*LOCAL_REGISTRY=10\\.0\\.0\\.30:5000 .*cluster-bootstrap\\.sh prereqs"
  done
  [ "$(count_calls 'cluster-bootstrap\.sh registry$')" -eq 4 ]
  [ "$(line_of "$(remote "${M}" verify)")" -lt "$(line_of 'cluster-bootstrap\.sh registry$')" ]
}

@test "up: the operator's variables are handed to the nodes" {
  NVIDIA_DRIVER=nvidia-driver-550-server INIT_FORCE_RESET=0 HELM_SKIP_INSTALL=1 run "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  assert_called "^ssh .* ${G1//./\\.} sudo env NVIDIA_DRIVER=nvidia-driver-550-server HELM_SKIP_INSTALL=1 INIT_FORCE_RESET=0 .* prereqs --gpu$"
  assert_called "^ssh .* ${M//./\\.} sudo env .*INIT_FORCE_RESET=0 .* init$"
}
