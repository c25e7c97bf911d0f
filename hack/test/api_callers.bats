#!/usr/bin/env bats
# hack/check-api-callers.py: only the client module speaks gShare's /api/v1 with java.net.http; it names a file that
# does, and a listed exception that no longer exists.
# shellcheck disable=SC2154 # status and stderr are set by bats' run

REPO_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
CHECK="${REPO_ROOT}/hack/check-api-callers.py"

setup() {
  bats_require_minimum_version 1.5.0
  COPY="${BATS_TEST_TMPDIR}/repo"
  mkdir -p "${COPY}"
  tar -C "${REPO_ROOT}" --exclude=./.git --exclude=target --exclude=node_modules --exclude=./.tools \
    --exclude=./e2e --exclude=./charts --exclude=./docs -cf - . | tar -C "${COPY}" -xf -
}

@test "the repository passes" {
  run --separate-stderr python3 "${CHECK}"
  [ "${status}" -eq 0 ] || {
    echo "${stderr}" >&2
    return 1
  }
}

@test "a test building its own request to /api/v1 fails, named" {
  mkdir -p "${COPY}/api/src/test/java/io/gshare/api/sneaky"
  cat >"${COPY}/api/src/test/java/io/gshare/api/sneaky/SneakyIT.java" <<'JAVA'
import java.net.http.HttpClient;
class SneakyIT {
  String path = "/api/v1/sessions";
  HttpClient http = HttpClient.newHttpClient();
}
JAVA
  run --separate-stderr python3 "${CHECK}" --root "${COPY}"
  [ "${status}" -eq 1 ]
  grep -qF "api/src/test/java/io/gshare/api/sneaky/SneakyIT.java: builds requests to /api/v1" <<<"${stderr}"
}

@test "the same file inside the client module passes" {
  mkdir -p "${COPY}/client/src/main/java/io/gshare/client/more"
  printf 'import java.net.http.HttpClient;\nclass More { String p = "/api/v1/sessions"; }\n' \
    >"${COPY}/client/src/main/java/io/gshare/client/more/More.java"
  run --separate-stderr python3 "${CHECK}" --root "${COPY}"
  [ "${status}" -eq 0 ] || {
    echo "${stderr}" >&2
    return 1
  }
}

@test "a listed exception that is gone fails" {
  rm "${COPY}/cluster-worker/src/main/java/io/gshare/clusterworker/UsageReporter.java"
  run --separate-stderr python3 "${CHECK}" --root "${COPY}"
  [ "${status}" -eq 1 ]
  grep -qF "UsageReporter.java: listed as speaking another peer's /api/v1 but missing" <<<"${stderr}"
}

@test "a wrong argument prints the usage and exits 2" {
  run --separate-stderr python3 "${CHECK}" --frobnicate
  [ "${status}" -eq 2 ]
  grep -qF "usage: hack/check-api-callers.py" <<<"${stderr}"
}
