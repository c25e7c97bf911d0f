#!/usr/bin/env bash
# run.sh - the hack/ test suite: shellcheck over every *.sh under hack/ and the test stubs and helpers, then
# every bats test in hack/test/ (the real hack/cluster-bootstrap.sh against stub commands and a temporary root).
# Installs shellcheck and bats with apt-get when they are missing (needs root or sudo on Debian/Ubuntu).
#
# Usage: hack/test/run.sh [bats options...]     (works from any directory)
#
# Environment:
#   SKIP_SHELLCHECK=${SKIP_SHELLCHECK:-0}   1: do not run shellcheck
#   SKIP_BATS=${SKIP_BATS:-0}               1: do not run the bats tests
#
# Exit status: 0 when shellcheck is clean and every bats test passed, non-zero otherwise. The last line is
# "hack/test: N passed, N failed" (shellcheck counts as one check, each bats test as one).

set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
SKIP_SHELLCHECK="${SKIP_SHELLCHECK:-0}"
SKIP_BATS="${SKIP_BATS:-0}"
WORK_DIR=""

info() { printf '[hack/test] %s\n' "$*" >&2; }
fatal() {
  printf '[hack/test] ERROR: %s\n' "$1" >&2
  if [[ $# -gt 1 ]]; then printf '[hack/test]   hint: %s\n' "$2" >&2; fi
  exit 1
}

cleanup() {
  if [[ -n ${WORK_DIR} && -d ${WORK_DIR} ]]; then rm -rf "${WORK_DIR}"; fi
}

# ensure_tools: apt-get install the missing ones; apt-get update only when the first install fails.
ensure_tools() {
  local missing=() tool
  for tool in shellcheck bats; do
    command -v "${tool}" >/dev/null 2>&1 || missing+=("${tool}")
  done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  local sudo=()
  if [[ ${EUID} -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fatal "${missing[*]} missing and not root" "apt-get install -y ${missing[*]}"
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 || fatal "${missing[*]} missing and no apt-get" "install ${missing[*]} yourself"
  info "installing ${missing[*]} with apt-get"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >"${WORK_DIR}/apt.log" 2>&1; then
    info "apt-get install failed; running apt-get update first"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >>"${WORK_DIR}/apt.log" 2>&1 ||
      { cat "${WORK_DIR}/apt.log" >&2; fatal "apt-get update failed" "check the network and apt sources"; }
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "${missing[@]}" >>"${WORK_DIR}/apt.log" 2>&1 ||
      { cat "${WORK_DIR}/apt.log" >&2; fatal "apt-get install ${missing[*]} failed"; }
  fi
  hash -r
  for tool in "${missing[@]}"; do
    command -v "${tool}" >/dev/null 2>&1 || fatal "${tool} still missing after apt-get install"
  done
}

# The tests use run --separate-stderr and BATS_TEST_TMPDIR (bats >= 1.5; Debian 12 and Ubuntu 24.04 ship newer).
check_bats_version() {
  local version major minor
  version="$(bats --version | awk '{ print $2 }')"
  IFS=. read -r major minor _ <<<"${version}"
  if [[ ${major:-0} -lt 1 || (${major:-0} -eq 1 && ${minor:-0} -lt 5) ]]; then
    fatal "bats ${version} is too old: the tests need bats >= 1.5" \
      "install a newer bats (Debian 12+/Ubuntu 24.04+ packages, or npm install -g bats) first on PATH"
  fi
}

run_shellcheck() {
  local files=()
  mapfile -t files < <(
    find "${REPO_ROOT}/hack" -type f -name '*.sh' | sort
    printf '%s\n' "${REPO_ROOT}/hack/test/stubs/stub" "${REPO_ROOT}/hack/test/helpers.bash"
  )
  info "shellcheck $(shellcheck --version | sed -n 's/^version: //p') on ${#files[@]} files"
  if shellcheck --external-sources "${files[@]}"; then
    info "shellcheck: clean"
    return 0
  fi
  info "shellcheck: FAILED"
  return 1
}

# run_bats [bats options]: TAP output to the terminal; prints the counts; non-zero when a test failed.
run_bats() {
  local tap="${WORK_DIR}/bats.tap" rc=0 passed failed
  check_bats_version
  info "bats $(bats --version | awk '{ print $2 }') on ${REPO_ROOT}/hack/test"
  bats --tap "$@" "${REPO_ROOT}/hack/test" | tee "${tap}" || rc=$?
  passed="$(grep -c '^ok ' "${tap}" || true)"
  failed="$(grep -c '^not ok ' "${tap}" || true)"
  if [[ ${rc} -ne 0 && ${failed} -eq 0 ]]; then
    failed=1 # bats itself failed (syntax error, setup failure outside a test)
  fi
  PASSED=$((PASSED + passed))
  FAILED=$((FAILED + failed))
  [[ ${rc} -eq 0 && ${failed} -eq 0 ]]
}

main() {
  WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/hack-test.XXXXXX")"
  trap cleanup EXIT
  ensure_tools
  local status=0
  PASSED=0
  FAILED=0
  if [[ ${SKIP_SHELLCHECK} != 1 ]]; then
    # The lint counts as one check in the summary.
    if run_shellcheck; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)) && status=1; fi
  fi
  if [[ ${SKIP_BATS} != 1 ]]; then
    run_bats "$@" || status=1
  fi
  if [[ ${status} -ne 0 ]]; then info "FAILED"; fi
  printf 'hack/test: %s passed, %s failed\n' "${PASSED}" "${FAILED}"
  return "${status}"
}

main "$@"
