#!/usr/bin/env bats
# Command line of hack/cluster-bootstrap.sh: help text, usage errors (exit 2, a Usage line, nothing changed).

load helpers

setup() {
  common_setup
  seed_node_root
  BEFORE="$(snapshot_root)"
}

# The run changed nothing: no call, the temporary root as it was.
assert_nothing_changed() {
  assert_usage_error
  assert_equal "$(snapshot_root)" "${BEFORE}"
}

@test "help prints every subcommand" {
  run --separate-stderr "${SCRIPT}" help
  [ "${status}" -eq 0 ]
  for sub in 'up' 'prereqs \[--gpu\]' 'init' 'join "<kubeadm join ...>"' 'addons' 'label <node> <mode>' \
    'verify' 'storage <device>' 'storage-csi <ip> <key>' 'registry' 'help'; do
    grep -qE "^  ${sub} " <<<"${output}" || {
      echo "help lacks the subcommand: ${sub}" >&2
      return 1
    }
  done
  grep -q 'exclusive|fractional' <<<"${output}"
  grep -q 'gshare.io/criu=ready' <<<"${output}"
  grep -q 'gshare.io/cuda-checkpoint=ready' <<<"${output}"
  [ ! -s "${STUB_LOG}" ]
}

@test "help documents every variable the script reads, with its default" {
  run --separate-stderr "${SCRIPT}" help
  [ "${status}" -eq 0 ]
  local vars
  vars="$(grep -oE '^[A-Z0-9_]+="\$\{[A-Z0-9_]+:-' "${SCRIPT}" | sed -E 's/^([A-Z0-9_]+)=.*/\1/' | sort -u)"
  [ "$(wc -l <<<"${vars}")" -ge 30 ]
  for var in ${vars}; do
    grep -qF "\${${var}:-" <<<"${output}" || {
      echo "help lacks the variable ${var}" >&2
      return 1
    }
  done
  # The seed's variables and defaults.
  grep -qF '${NVIDIA_DRIVER:-auto}' <<<"${output}"
  grep -qF '${REBOOT_WAIT_TRIES:-120}' <<<"${output}"
  grep -qF '${ZFS_ARC_MAX_MB:-3072}' <<<"${output}"
  grep -qF '${INIT_FORCE_RESET:-1}' <<<"${output}"
  grep -qF '${HELM_SKIP_INSTALL:-0}' <<<"${output}"
}

@test "every upstream location is one overridable variable with the upstream default" {
  run --separate-stderr "${SCRIPT}" help
  for var in K8S_APT_REPO NVIDIA_CTK_APT_REPO HELM_INSTALL_SCRIPT HAMI_CHART_REPO INGRESS_NGINX_CHART_REPO \
    DEMOCRATIC_CSI_CHART_REPO FLANNEL_MANIFEST LOCAL_PATH_MANIFEST DOCKER_HUB_UPSTREAM; do
    [ "$(grep -cE "^${var}=\"\\\$\\{${var}:-https://" "${SCRIPT}")" -eq 1 ]
    grep -qE "${var}=\\\$\\{${var}:-https://" <<<"${output}"
  done
  # No other line of code names an upstream host (the node's own API server and the LAN registry aside).
  local code
  code="$(grep -nE 'https?://' "${SCRIPT}" | grep -vE '^[0-9]+:#' | grep -vE '^[0-9]+:[A-Z0-9_]+="\$\{[A-Z0-9_]+:-https://' |
    grep -vE 'http://\$\{LOCAL_REGISTRY|https://127\.0\.0\.1:6443' || true)"
  [ -z "${code}" ] || {
    echo "hard-coded URLs: ${code}" >&2
    return 1
  }
}

@test "no subcommand is a usage error" {
  run --separate-stderr "${SCRIPT}"
  assert_nothing_changed
}

@test "an unknown subcommand is a usage error that changes nothing" {
  run --separate-stderr "${SCRIPT}" destroy-everything
  assert_nothing_changed
  grep -q "unknown subcommand 'destroy-everything'" <<<"${stderr}"
}

@test "a bad label mode is a usage error that changes nothing" {
  run --separate-stderr "${SCRIPT}" label gpu-1 shared
  assert_nothing_changed
  grep -q "unknown label mode 'shared'" <<<"${stderr}"
  grep -qF 'label <node> exclusive|fractional|cpu|storage' <<<"${stderr}"
}

@test "label without a mode is a usage error" {
  run --separate-stderr "${SCRIPT}" label gpu-1
  assert_nothing_changed
}

@test "up without cluster-info is a usage error that changes nothing" {
  run --separate-stderr "${SCRIPT}" up
  assert_nothing_changed
  grep -q 'cluster info not found' <<<"${stderr}"
  grep -q 'cluster-info.example' <<<"${stderr}"
}

@test "up with a bad worker mode in cluster-info is a usage error that changes nothing" {
  printf 'MASTER_NODE=ubuntu@10.0.0.10\nWORKER_NODES=ubuntu@10.0.0.11:shared\n' >"${CLUSTER_INFO}"
  run --separate-stderr "${SCRIPT}" up
  assert_nothing_changed
  grep -q 'mode must be exclusive or fractional' <<<"${stderr}"
}

@test "up without MASTER_NODE is a usage error" {
  printf 'WORKER_NODES=ubuntu@10.0.0.11\n' >"${CLUSTER_INFO}"
  run --separate-stderr "${SCRIPT}" up
  assert_nothing_changed
  grep -q 'MASTER_NODE is not set' <<<"${stderr}"
}

@test "up with a STORAGE_NODE without a device is a usage error" {
  printf 'MASTER_NODE=ubuntu@10.0.0.10\nSTORAGE_NODE=ubuntu@10.0.0.12\n' >"${CLUSTER_INFO}"
  run --separate-stderr "${SCRIPT}" up
  assert_nothing_changed
}

@test "prereqs with an unknown option is a usage error" {
  run --separate-stderr "${SCRIPT}" prereqs --cpu
  assert_nothing_changed
}

@test "join without a kubeadm join command is a usage error" {
  run --separate-stderr "${SCRIPT}" join
  assert_nothing_changed
  run --separate-stderr "${SCRIPT}" join "rm -rf /"
  assert_nothing_changed
}

@test "storage without a device or without STORAGE_CSI_PUBKEY is a usage error" {
  run --separate-stderr "${SCRIPT}" storage
  assert_nothing_changed
  run --separate-stderr "${SCRIPT}" storage /dev/vdb
  assert_nothing_changed
  grep -q 'STORAGE_CSI_PUBKEY is empty' <<<"${stderr}"
  STORAGE_CSI_PUBKEY="not a key" run --separate-stderr "${SCRIPT}" storage /dev/vdb
  assert_nothing_changed
}

@test "storage-csi without a readable key is a usage error" {
  run --separate-stderr "${SCRIPT}" storage-csi 10.0.0.12
  assert_nothing_changed
  run --separate-stderr "${SCRIPT}" storage-csi 10.0.0.12 /nonexistent/key
  assert_nothing_changed
}

@test "registry without LOCAL_REGISTRY is a usage error" {
  run --separate-stderr "${SCRIPT}" registry
  assert_nothing_changed
  LOCAL_REGISTRY=not-a-host-port run --separate-stderr "${SCRIPT}" registry
  assert_nothing_changed
}

@test "a bad boolean variable is a usage error" {
  INIT_FORCE_RESET=yes run --separate-stderr "${SCRIPT}" init
  assert_nothing_changed
  grep -q 'INIT_FORCE_RESET must be 0 or 1' <<<"${stderr}"
}

@test "a bad NVIDIA_DRIVER is a usage error" {
  NVIDIA_DRIVER="nvidia-driver-550; reboot" run --separate-stderr "${SCRIPT}" prereqs --gpu
  assert_nothing_changed
}

@test "hack/cluster-info and the storage-csi key pair are git-ignored, the example is not" {
  if ! git -C "${REPO_ROOT}" rev-parse --git-dir >/dev/null 2>&1; then
    skip "not a git checkout"
  fi
  git -C "${REPO_ROOT}" check-ignore -q hack/cluster-info
  git -C "${REPO_ROOT}" check-ignore -q hack/storage-csi-key
  git -C "${REPO_ROOT}" check-ignore -q hack/storage-csi-key.pub
  ! git -C "${REPO_ROOT}" check-ignore -q hack/cluster-info.example
  grep -qE '^MASTER_NODE=' "${REPO_ROOT}/hack/cluster-info.example"
  grep -qE '^WORKER_NODES=.*:exclusive' "${REPO_ROOT}/hack/cluster-info.example"
  grep -qE '^# STORAGE_NODE=[^ ]+@[^ ]+:/dev/' "${REPO_ROOT}/hack/cluster-info.example"
}

@test "cluster-info.example is accepted by up as it is" {
  cp "${REPO_ROOT}/hack/cluster-info.example" "${CLUSTER_INFO}"
  REBOOT_WAIT_TRIES=1 run --separate-stderr "${SCRIPT}" up
  [ "${status}" -eq 0 ]
  assert_called 'ubuntu@10\.10\.0\.196 sudo env .* prereqs --gpu$'
  assert_called 'label node-10-10-0-196 exclusive$'
  assert_called 'label node-10-10-0-197 fractional$'
}
