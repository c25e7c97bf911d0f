#!/usr/bin/env bats
# hack/deploy.sh (make deploy-incluster, prod-deploy, deploy-temporal) against stub helm and kubectl: what it
# refuses, which helm command it runs or prints, and that the make targets call it. No real cluster is
# touched: the script runs with a PATH of the stubs and a few links to system tools only, so no real
# kubectl or helm can resolve.
# The script runs from a copy inside a temporary repo tree (it finds its charts and values relative to its
# own location), so the tests do not depend on charts/gshare and deploy/values being in this checkout.
# shellcheck disable=SC2154 # status, output and stderr are set by bats' run

setup() {
  bats_require_minimum_version 1.5.0
  REAL_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
  ROOT="${BATS_TEST_TMPDIR}/repo"
  SCRIPT="${ROOT}/hack/deploy.sh"
  BIN="${BATS_TEST_TMPDIR}/bin"
  SYS="${BATS_TEST_TMPDIR}/sys"
  export LOG="${BATS_TEST_TMPDIR}/calls.log"
  export STATE="${BATS_TEST_TMPDIR}/state"
  mkdir -p "${ROOT}/hack" "${ROOT}/charts/gshare" "${ROOT}/deploy/values" "${ROOT}/deploy/temporal" "${BIN}" "${SYS}" "${STATE}"
  : >"${LOG}"
  cp "${REAL_ROOT}/hack/deploy.sh" "${SCRIPT}"
  cp "${REAL_ROOT}/deploy/temporal/values.yaml" "${ROOT}/deploy/temporal/values.yaml"
  printf 'apiVersion: v2\nname: gshare\nversion: 0.1.0\n' >"${ROOT}/charts/gshare/Chart.yaml"
  echo "# incluster" >"${ROOT}/deploy/values/incluster.yaml"
  echo "# dockerhub" >"${ROOT}/deploy/values/dockerhub.yaml"

  # The system tools the script and the stubs use, and nothing else (no real kubectl or helm).
  local tool
  for tool in bash dirname sed sort; do
    ln -s "$(command -v "${tool}")" "${SYS}/${tool}"
  done

  cat >"${BIN}/kubectl" <<'STUB'
#!/usr/bin/env bash
printf 'kubectl %s\n' "$*" >>"${LOG}"
if [[ -f ${STATE}/unreachable && " $* " == *" get "* ]]; then
  echo "The connection to the server 10.0.0.10:6443 was refused - did you specify the right host or port?" >&2
  exit 1
fi
args=" $* "
case ${args} in
  *" config current-context "*)
    if [[ -f ${STATE}/no-context ]]; then echo "error: current-context is not set" >&2; exit 1; fi
    echo "kind-gshare" ;;
  *" config get-contexts -o name "*) printf 'kind-gshare\nlab-prod\n' ;;
  *" get crd "*)
    name=${args#* get crd }; name=${name%% *}
    if [[ -f ${STATE}/no-crd.${name} ]]; then
      echo "Error from server (NotFound): customresourcedefinitions.apiextensions.k8s.io \"${name}\" not found" >&2
      exit 1
    fi
    echo "customresourcedefinition.apiextensions.k8s.io/${name}" ;;
  *" get "*" secret "*)
    name=${args#* secret }; name=${name%% *}
    if [[ -f ${STATE}/no-secret.${name} ]]; then
      echo "Error from server (NotFound): secrets \"${name}\" not found" >&2
      exit 1
    fi
    echo "secret/${name}" ;;
esac
STUB
  cat >"${BIN}/helm" <<'STUB'
#!/usr/bin/env bash
printf 'helm %s\n' "$*" >>"${LOG}"
printf '%s\n' "${PWD}" >"${STATE}/helm-cwd"
if [[ -f ${STATE}/helm-fails ]]; then echo "Error: UPGRADE FAILED: context deadline exceeded" >&2; exit 1; fi
STUB
  chmod +x "${BIN}/kubectl" "${BIN}/helm"
  TEST_PATH="${BIN}:${SYS}"
  unset TOOLS_DIR TEMPORAL_CHART_REPO TEMPORAL_CHART_VERSION DEPLOY_TIMEOUT KUBECONFIG
  # The Temporal project's Helm repository is the operator's to name (no external host names in the code).
  export TEMPORAL_CHART_REPO=https://charts.example.com/temporal
}

# deploy ARGS...: the script with the stubs' PATH (the test itself keeps the full PATH).
deploy() { run --separate-stderr env PATH="${TEST_PATH}" "${SCRIPT}" "$@"; }

INCLUSTER_HELM="helm upgrade --install gshare charts/gshare -n gshare-system --create-namespace -f deploy/values/incluster.yaml --wait --timeout 15m"
PROD_HELM="helm upgrade --install gshare charts/gshare -n gshare-system --create-namespace -f deploy/values/dockerhub.yaml --wait --timeout 15m"
TEMPORAL_HELM="helm upgrade --install temporal temporal --repo https://charts.example.com/temporal --version 1.6.0 -n temporal --create-namespace -f deploy/temporal/values.yaml --wait --timeout 15m"

show_calls() {
  echo "--- recorded calls:" >&2
  cat "${LOG}" >&2
}

assert_call() {
  grep -qxF -- "$1" "${LOG}" || {
    echo "expected the call: $1" >&2
    show_calls
    return 1
  }
}

assert_no_helm() {
  if grep -q '^helm ' "${LOG}"; then
    echo "helm must not run" >&2
    show_calls
    return 1
  fi
}

line_of() { grep -n -m 1 -E -- "$1" "${LOG}" | cut -d: -f1; }

@test "incluster: helm upgrade --install of charts/gshare with the incluster values, from the repo root" {
  deploy incluster
  [ "${status}" -eq 0 ]
  assert_call "kubectl config current-context"
  assert_call "${INCLUSTER_HELM}"
  [ "$(grep -c '^helm ' "${LOG}")" -eq 1 ]
  [ "$(cat "${STATE}/helm-cwd")" = "${ROOT}" ]
  [[ ${stderr} == *"kubectl context kind-gshare"* ]]
  [ -z "${output}" ]
}

@test "--dry-run prints the exact helm command of each target and runs none" {
  deploy incluster --dry-run
  [ "${status}" -eq 0 ]
  [ "${output}" = "${INCLUSTER_HELM}" ]

  deploy --dry-run prod
  [ "${status}" -eq 0 ]
  [ "${output}" = "${PROD_HELM}" ]

  deploy temporal --dry-run
  [ "${status}" -eq 0 ]
  [ "${output}" = "${TEMPORAL_HELM}" ]
  [[ ${stderr} == *"dry run"* ]]

  assert_no_helm
  # The checks still ran: the context each time, the CRDs for prod, the database Secret for temporal.
  [ "$(grep -c '^kubectl config current-context$' "${LOG}")" -eq 3 ]
  assert_call "kubectl get crd clusters.postgresql.cnpg.io -o name"
  assert_call "kubectl get --namespace temporal secret temporal-db -o name"
}

@test "--dry-run with --context and a chart version override" {
  export TEMPORAL_CHART_VERSION=1.7.0
  deploy temporal --dry-run --context lab-prod
  [ "${status}" -eq 0 ]
  [ "${output}" = "${TEMPORAL_HELM/1.6.0/1.7.0} --kube-context lab-prod" ]
  assert_call "kubectl --context lab-prod get --namespace temporal secret temporal-db -o name"
  assert_no_helm
}

@test "prod: both CRDs are checked before helm runs with the dockerhub values" {
  deploy prod
  [ "${status}" -eq 0 ]
  assert_call "kubectl get crd clusters.postgresql.cnpg.io -o name"
  assert_call "kubectl get crd externalsecrets.external-secrets.io -o name"
  assert_call "${PROD_HELM}"
  [ "$(line_of 'get crd externalsecrets')" -lt "$(line_of '^helm ')" ]
}

@test "prod refuses without the CloudNativePG CRD, naming what to install" {
  touch "${STATE}/no-crd.clusters.postgresql.cnpg.io"
  deploy prod
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"clusters.postgresql.cnpg.io"* ]]
  [[ ${stderr} == *"CloudNativePG"* ]]
  [[ ${stderr} != *"externalsecrets.external-secrets.io"* ]]
  assert_no_helm
}

@test "prod refuses without the external-secrets CRD; both missing are both named" {
  touch "${STATE}/no-crd.externalsecrets.external-secrets.io"
  deploy prod
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"externalsecrets.external-secrets.io"* ]]
  [[ ${stderr} == *"External Secrets Operator"* ]]
  assert_no_helm

  touch "${STATE}/no-crd.clusters.postgresql.cnpg.io"
  deploy prod --dry-run
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"CloudNativePG"* ]]
  [[ ${stderr} == *"External Secrets Operator"* ]]
  [ -z "${output}" ]
}

@test "an unreachable cluster is reported as such, not as a missing CRD" {
  touch "${STATE}/unreachable"
  deploy prod
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"connection to the server"* ]]
  [[ ${stderr} != *"install"* ]]
  assert_no_helm
}

@test "temporal: the pinned official chart with deploy/temporal/values.yaml, and no search-attribute step" {
  deploy temporal
  [ "${status}" -eq 0 ]
  assert_call "kubectl get --namespace temporal secret temporal-db -o name"
  assert_call "${TEMPORAL_HELM}"
  [ "$(cat "${STATE}/helm-cwd")" = "${ROOT}" ]
  # gShare's api registers its search attributes itself (SearchAttributeRegistrar).
  if grep -q 'exec\|search-attribute' "${LOG}"; then show_calls && false; fi
  [[ ${stderr} == *"temporal-frontend.temporal.svc:7233"* ]]
}

@test "temporal refuses while the database Secret its values name is missing" {
  touch "${STATE}/no-secret.temporal-db"
  deploy temporal
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"temporal/temporal-db"* ]]
  [[ ${stderr} == *"create secret generic temporal-db"* ]]
  assert_no_helm
}

@test "refuses without helm, naming make tools, before touching kubectl" {
  rm "${BIN}/helm"
  deploy incluster
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"helm not found"* ]]
  [[ ${stderr} == *"make tools"* ]]
  [ ! -s "${LOG}" ]
}

@test "refuses without kubectl, naming make tools" {
  rm "${BIN}/kubectl"
  deploy temporal --dry-run
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"kubectl not found"* ]]
  [[ ${stderr} == *"make tools"* ]]
  assert_no_helm
}

@test "kubectl and helm from <repo>/.tools/bin when they are not on PATH" {
  mkdir -p "${ROOT}/.tools/bin"
  mv "${BIN}/kubectl" "${BIN}/helm" "${ROOT}/.tools/bin/"
  deploy incluster --dry-run
  [ "${status}" -eq 0 ]
  [ "${output}" = "${ROOT}/.tools/bin/${INCLUSTER_HELM}" ]
  assert_call "kubectl config current-context"
}

@test "refuses when kubectl has no current context, saying how to set one" {
  touch "${STATE}/no-context"
  deploy incluster
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"no current kubectl context"* ]]
  [[ ${stderr} == *"kubectl config use-context"* ]]
  [[ ${stderr} == *"--context"* ]]
  assert_no_helm
}

@test "--context: an unknown context is refused; a known one is passed to kubectl and helm" {
  deploy incluster --context nope
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"no context named nope"* ]]
  [[ ${stderr} == *"kubectl config get-contexts"* ]]
  assert_no_helm

  : >"${LOG}"
  deploy prod --context=lab-prod
  [ "${status}" -eq 0 ]
  assert_call "kubectl config get-contexts -o name"
  assert_call "kubectl --context lab-prod get crd clusters.postgresql.cnpg.io -o name"
  assert_call "${PROD_HELM} --kube-context lab-prod"
  if grep -q 'current-context' "${LOG}"; then show_calls && false; fi
}

@test "refuses when the chart or a values file is missing, before touching the cluster" {
  rm "${ROOT}/deploy/values/incluster.yaml"
  deploy incluster
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"deploy/values/incluster.yaml is missing"* ]]

  rm "${ROOT}/deploy/values/dockerhub.yaml"
  deploy prod --dry-run
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"deploy/values/dockerhub.yaml is missing"* ]]

  rm -r "${ROOT}/charts/gshare"
  deploy prod
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"charts/gshare/Chart.yaml is missing"* ]]

  rm "${ROOT}/deploy/temporal/values.yaml"
  deploy temporal
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"deploy/temporal/values.yaml is missing"* ]]

  [ ! -s "${LOG}" ]
}

@test "a failing helm exits 1 with a message" {
  touch "${STATE}/helm-fails"
  deploy incluster
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"UPGRADE FAILED"* ]]
  [[ ${stderr} == *"helm upgrade --install failed in context kind-gshare"* ]]
}

@test "usage errors exit 2 with the usage line and call nothing" {
  local args
  for args in "" "bogus" "--bogus incluster" "incluster prod" "incluster --context" "temporal --context --dry-run" "--dry-run"; do
    # shellcheck disable=SC2086 # split on purpose
    deploy ${args}
    if [ "${status}" -ne 2 ]; then
      echo "args '${args}': expected exit 2, got ${status}; stderr: ${stderr}" >&2
      return 1
    fi
    grep -q '^Usage: hack/deploy.sh <incluster|prod|temporal> \[--dry-run\] \[--context NAME\]$' <<<"${stderr}" || {
      echo "args '${args}': no usage line in: ${stderr}" >&2
      return 1
    }
  done
  [ ! -s "${LOG}" ]
}

@test "--help prints the usage and exits 0" {
  deploy --help
  [ "${status}" -eq 0 ]
  [[ ${stderr} == *"Usage: hack/deploy.sh"* ]]
  [[ ${stderr} == *"TEMPORAL_CHART_VERSION"* ]]
  [ ! -s "${LOG}" ]
}

@test "temporal without TEMPORAL_CHART_REPO says to set it and runs nothing" {
  unset TEMPORAL_CHART_REPO
  deploy temporal
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"set TEMPORAL_CHART_REPO"* ]]
  ! grep -q '^helm upgrade' "${LOG}" 2>/dev/null
}

@test "make -n deploy-incluster, prod-deploy and deploy-temporal run hack/deploy.sh, passing DEPLOY_ARGS" {
  run --separate-stderr make -s -n -C "${REAL_ROOT}" deploy-incluster
  [ "${status}" -eq 0 ]
  [ "${output}" = "hack/deploy.sh incluster " ]
  run --separate-stderr make -s -n -C "${REAL_ROOT}" prod-deploy
  [ "${status}" -eq 0 ]
  [ "${output}" = "hack/deploy.sh prod " ]
  run --separate-stderr make -s -n -C "${REAL_ROOT}" deploy-temporal DEPLOY_ARGS="--dry-run --context lab-prod"
  [ "${status}" -eq 0 ]
  [ "${output}" = "hack/deploy.sh temporal --dry-run --context lab-prod" ]
  [ ! -s "${LOG}" ]
}
