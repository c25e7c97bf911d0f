#!/usr/bin/env bats
# deploy/monitoring/gshare-rules.yaml: gShare's alerting rules are valid for Prometheus (promtool check rules) and
# fire as deploy/monitoring/gshare-rules.test.yaml expects (promtool test rules). Needs .tools/bin/promtool
# (hack/tools.sh takes it from Debian's prometheus package).
# shellcheck disable=SC2154 # status and output are set by bats' run

setup() {
  REPO="$(cd "${BATS_TEST_DIRNAME}/../.." && pwd -P)"
  PROMTOOL="${REPO}/.tools/bin/promtool"
  [ -x "${PROMTOOL}" ] || skip "no .tools/bin/promtool: run hack/tools.sh (make tools)"
  WORK="${BATS_TEST_TMPDIR}/rules"
  mkdir -p "${WORK}"
  cp "${REPO}/deploy/monitoring/gshare-rules.yaml" "${REPO}/deploy/monitoring/gshare-rules.test.yaml" "${WORK}/"
}

@test "the rules are valid for Prometheus" {
  run "${PROMTOOL}" check rules "${WORK}/gshare-rules.yaml"
  [ "${status}" -eq 0 ]
  [[ ${output} == *"SUCCESS: 7 rules found"* ]]
}

@test "each rule fires on the series it is about, after its for, and not before" {
  cd "${WORK}"
  run "${PROMTOOL}" test rules gshare-rules.test.yaml
  [ "${status}" -eq 0 ] || { echo "${output}" >&2; false; }
}

@test "a rule whose threshold is wrong fails its unit test (the tests can fail)" {
  cd "${WORK}"
  sed -i 's/gshare_operator_token_expiry_seconds) < 86400/gshare_operator_token_expiry_seconds) < 600/' gshare-rules.yaml
  run "${PROMTOOL}" test rules gshare-rules.test.yaml
  [ "${status}" -ne 0 ]
  [[ ${output} == *"GshareOperatorTokenExpiringSoon"* ]]
}

@test "a rule with a broken expression is refused" {
  sed -i 's/max by (cluster) (gshare_nodes/max by (cluster) (gshare_nodes{/' "${WORK}/gshare-rules.yaml"
  run "${PROMTOOL}" check rules "${WORK}/gshare-rules.yaml"
  [ "${status}" -ne 0 ]
}
