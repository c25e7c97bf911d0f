#!/usr/bin/env bats
# hack/bootstrap-superadmin.sh: which mode it picks, what it runs, and that only the token reaches stdout.
# shellcheck disable=SC2154 # status, output and stderr are set by bats' run

setup() {
  bats_require_minimum_version 1.5.0
  REPO_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
  SCRIPT="${REPO_ROOT}/hack/bootstrap-superadmin.sh"
  BIN="${BATS_TEST_TMPDIR}/bin"
  LOG="${BATS_TEST_TMPDIR}/calls.log"
  mkdir -p "${BIN}"
  : >"${LOG}"
  # java and kubectl stand-ins: record argv and the GSHARE_ environment, print a token on stdout and
  # noise on stderr, as the real command does.
  for cmd in java kubectl; do
    cat >"${BIN}/${cmd}" <<STUB
#!/usr/bin/env bash
printf '%s %s\n' "${cmd}" "\$*" >>"${LOG}"
env | grep '^GSHARE_' | sort >>"${LOG}"
echo "starting..." >&2
echo "eyJhbGciOiJSUzI1NiJ9.payload.signature"
STUB
    chmod +x "${BIN}/${cmd}"
  done
  export PATH="${BIN}:/usr/bin:/bin"
  export GSHARE_DEV_STATE="${BATS_TEST_TMPDIR}/runtime.env"
  touch "${BATS_TEST_TMPDIR}/gshare-api.jar"
}

write_state() {
  cat >"${GSHARE_DEV_STATE}" <<STATE
# written by the gShare dev runtime
GSHARE_API_URL=http://127.0.0.1:8080
GSHARE_DB_URL=jdbc:postgresql://localhost:55432/gshare?user=postgres
GSHARE_DB_USER=postgres
GSHARE_DB_PASSWORD=
GSHARE_SECURITY_KEY_DIR=${BATS_TEST_TMPDIR}/keys
GSHARE_API_JAR=${BATS_TEST_TMPDIR}/gshare-api.jar
STATE
}

@test "with a dev runtime running it runs the api jar's command with the runtime's database and keys" {
  write_state
  run --separate-stderr "${SCRIPT}" --email ops@example.com
  [ "${status}" -eq 0 ]
  [ "${output}" = "eyJhbGciOiJSUzI1NiJ9.payload.signature" ]
  grep -q "^java -jar ${BATS_TEST_TMPDIR}/gshare-api.jar bootstrap-superadmin --email ops@example.com$" "${LOG}"
  grep -q "^GSHARE_DB_URL=jdbc:postgresql://localhost:55432/gshare?user=postgres$" "${LOG}"
  grep -q "^GSHARE_SECURITY_KEY_DIR=${BATS_TEST_TMPDIR}/keys$" "${LOG}"
  run ! grep -q '^kubectl' "${LOG}"
}

@test "without a dev runtime it execs into the api pod in the cluster" {
  run --separate-stderr "${SCRIPT}" --namespace gshare-prod
  [ "${status}" -eq 0 ]
  [ "${output}" = "eyJhbGciOiJSUzI1NiJ9.payload.signature" ]
  grep -q '^kubectl -n gshare-prod exec deploy/gshare-api -c api -- java -cp @/app/jib-classpath-file @/app/jib-main-class-file bootstrap-superadmin --email superadmin@example.com$' "${LOG}"
}

@test "--cluster wins over a running dev runtime" {
  write_state
  run --separate-stderr "${SCRIPT}" --cluster
  [ "${status}" -eq 0 ]
  grep -q '^kubectl -n gshare-system exec' "${LOG}"
  run ! grep -q '^java' "${LOG}"
}

@test "--dev without a dev runtime says how to start one" {
  run --separate-stderr "${SCRIPT}" --dev
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"make dev"* ]]
  [ ! -s "${LOG}" ]
}

@test "bad arguments print the usage, exit 2 and run nothing" {
  for args in "--bogus" "--email" "--email not-an-address" "--namespace"; do
    # shellcheck disable=SC2086 # split on purpose
    run --separate-stderr "${SCRIPT}" ${args}
    [ "${status}" -eq 2 ]
    [[ "${stderr}" == *"Usage: hack/bootstrap-superadmin.sh"* ]]
    [ -z "${output}" ]
  done
  [ ! -s "${LOG}" ]
}
