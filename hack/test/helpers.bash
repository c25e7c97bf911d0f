# helpers.bash - shared setup and assertions for the hack/cluster-bootstrap.sh bats tests.
# Every test runs the real script with the stub commands (hack/test/stubs/stub) first on PATH, against a
# temporary root (GSHARE_ROOT), and asserts on the recorded calls ($STUB_LOG) and on the files it wrote.
# shellcheck shell=bash
# shellcheck disable=SC2034 # SCRIPT and FIXTURES are used by the .bats files
# shellcheck disable=SC2154 # status and stderr are set by bats' run

REPO_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
SCRIPT="${REPO_ROOT}/hack/cluster-bootstrap.sh"
FIXTURES="${REPO_ROOT}/hack/test/fixtures"
STUB_CMDS=(ssh scp apt-get apt-mark dpkg-query curl gpg kubeadm kubectl helm nvidia-smi nvidia-ctk containerd
  systemctl zpool zfs exportfs reboot modprobe sysctl swapoff useradd ssh-keygen ubuntu-drivers chown visudo ss)
# Every variable the script reads: cleared so that the caller's environment cannot leak into a test.
SCRIPT_VARS=(NVIDIA_DRIVER NVIDIA_DRIVER_REBOOT REBOOT_WAIT_TRIES REBOOT_WAIT_INTERVAL VERIFY_WAIT_TRIES
  VERIFY_WAIT_INTERVAL HELM_SKIP_INSTALL INIT_FORCE_RESET STORAGE_VDEVS ZFS_ARC_MAX_MB STORAGE_CSI_PUBKEY
  LOCAL_REGISTRY LOCAL_REGISTRY_MIRROR SSH_OPTS CLUSTER_INFO STORAGE_CSI_KEY_FILE REMOTE_DIR K8S_VERSION POD_CIDR
  CONTAINERD_PACKAGE HAMI_CHART_VERSION INGRESS_NGINX_CHART_VERSION DEMOCRATIC_CSI_CHART_VERSION ADDONS_DIR
  DEMOCRATIC_CSI_VALUES GSHARE_ROOT K8S_APT_REPO NVIDIA_CTK_APT_REPO HELM_INSTALL_SCRIPT HAMI_CHART_REPO
  INGRESS_NGINX_CHART_REPO DEMOCRATIC_CSI_CHART_REPO FLANNEL_MANIFEST LOCAL_PATH_MANIFEST DOCKER_HUB_UPSTREAM
  SUDO_USER KUBECONFIG)

common_setup() {
  bats_require_minimum_version 1.5.0
  unset "${SCRIPT_VARS[@]}"
  export GSHARE_ROOT="${BATS_TEST_TMPDIR}/root"
  export STUB_STATE="${BATS_TEST_TMPDIR}/state"
  export STUB_LOG="${BATS_TEST_TMPDIR}/calls.log"
  export STUB_BIN="${BATS_TEST_TMPDIR}/bin"
  export HOME="${BATS_TEST_TMPDIR}/home"
  export TMPDIR="${BATS_TEST_TMPDIR}"
  export CLUSTER_INFO="${BATS_TEST_TMPDIR}/cluster-info"
  export STORAGE_CSI_KEY_FILE="${BATS_TEST_TMPDIR}/keys/storage-csi-key"
  export REBOOT_WAIT_INTERVAL=0
  mkdir -p "${GSHARE_ROOT}/etc" "${STUB_STATE}" "${STUB_BIN}" "${HOME}"
  : >"${STUB_LOG}"
  # The links are made once per .bats file and copied per test (forks are the slow part of a test).
  local c template="${BATS_FILE_TMPDIR}/stub-bin"
  if [[ ! -d ${template} ]]; then
    mkdir -p "${template}.new"
    for c in "${STUB_CMDS[@]}"; do ln -s "${REPO_ROOT}/hack/test/stubs/stub" "${template}.new/${c}"; done
    mv "${template}.new" "${template}"
  fi
  rmdir "${STUB_BIN}"
  cp -a "${template}" "${STUB_BIN}"
  export PATH="${STUB_BIN}:/usr/sbin:/usr/bin:/sbin:/bin"
  hash -r
  # Safety net: a command that changes the machine must never resolve to the real one (STUB_BIN is first
  # on PATH, so an executable stub there wins).
  for c in "${STUB_CMDS[@]}"; do
    [[ -x ${STUB_BIN}/${c} ]] || {
      echo "stub for ${c} is not first on PATH" >&2
      return 1
    }
  done
}

# A fresh, swap-enabled node.
seed_node_root() {
  cp "${FIXTURES}/fstab" "${GSHARE_ROOT}/etc/fstab"
  mkdir -p "${GSHARE_ROOT}/proc/sys/kernel/random"
  echo "boot-1111" >"${GSHARE_ROOT}/proc/sys/kernel/random/boot_id"
}

calls() { cat "${STUB_LOG}"; }

show_calls() {
  echo "--- recorded calls:" >&2
  cat "${STUB_LOG}" >&2
}

# line_of <ERE>: line number of the first recorded call matching the expression.
line_of() {
  local n
  n="$(grep -n -m 1 -E -- "$1" "${STUB_LOG}" | cut -d: -f1)"
  if [[ -z ${n} ]]; then
    echo "no call matches: $1" >&2
    show_calls
    return 1
  fi
  echo "${n}"
}

# last_line_of <ERE>: line number of the last recorded call matching the expression.
last_line_of() {
  local n
  n="$(grep -n -E -- "$1" "${STUB_LOG}" | tail -n 1 | cut -d: -f1)"
  if [[ -z ${n} ]]; then
    echo "no call matches: $1" >&2
    show_calls
    return 1
  fi
  echo "${n}"
}

# assert_call <exact call line>
assert_call() {
  grep -qxF -- "$1" "${STUB_LOG}" || {
    echo "expected the call: $1" >&2
    show_calls
    return 1
  }
}

# assert_called <ERE>
assert_called() {
  grep -qE -- "$1" "${STUB_LOG}" || {
    echo "expected a call matching: $1" >&2
    show_calls
    return 1
  }
}

# assert_not_called <ERE>
assert_not_called() {
  if grep -qE -- "$1" "${STUB_LOG}"; then
    echo "unexpected call matching: $1" >&2
    show_calls
    return 1
  fi
}

# assert_order <ERE> <ERE> ...: the first matches of the expressions come in this order.
assert_order() {
  local prev=0 n expr
  for expr in "$@"; do
    n="$(line_of "${expr}")" || return 1
    if [[ ${n} -le ${prev} ]]; then
      echo "call order wrong: '${expr}' (line ${n}) should come after line ${prev}" >&2
      show_calls
      return 1
    fi
    prev=${n}
  done
}

count_calls() { grep -cE -- "$1" "${STUB_LOG}" || true; }

# Content and mode of every file under the temporary root: compared between runs.
snapshot_root() {
  (cd "${GSHARE_ROOT}" && find . -print0 | sort -z | xargs -0 stat -c '%n %a %F' &&
    find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}

assert_equal() {
  if [[ "$1" != "$2" ]]; then
    printf 'expected: %s\n     got: %s\n' "$2" "$1" >&2
    return 1
  fi
}

# assert_usage_error: a run that failed as a usage error (exit 2, a Usage line on stderr, no call made).
assert_usage_error() {
  if [[ ${status} -ne 2 ]]; then
    echo "expected exit 2, got ${status}; stderr: ${stderr:-}" >&2
    return 1
  fi
  grep -q '^Usage: ' <<<"${stderr}" || {
    echo "no Usage line on stderr: ${stderr}" >&2
    return 1
  }
  if [[ -s ${STUB_LOG} ]]; then
    echo "a usage error must not call anything" >&2
    show_calls
    return 1
  fi
}
