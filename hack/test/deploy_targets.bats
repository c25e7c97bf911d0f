#!/usr/bin/env bats
# hack/deploy.sh (make deploy-incluster, prod-deploy, deploy-temporal, deploy-monitoring) against stub helm and
# kubectl: what it refuses, which helm or kubectl command it runs or prints, and that the make targets call it. No real cluster is
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
  mkdir -p "${ROOT}/hack" "${ROOT}/charts/gshare" "${ROOT}/deploy/values" "${ROOT}/deploy/temporal" \
    "${ROOT}/deploy/monitoring" "${BIN}" "${SYS}" "${STATE}"
  : >"${LOG}"
  cp "${REAL_ROOT}/hack/deploy.sh" "${SCRIPT}"
  cp "${REAL_ROOT}/deploy/temporal/values.yaml" "${ROOT}/deploy/temporal/values.yaml"
  cp "${REAL_ROOT}/deploy/monitoring/monitoring-stack.yaml" "${ROOT}/deploy/monitoring/monitoring-stack.yaml"
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
  # The is-default-class annotation of each StorageClass, one a line (deploy.sh's jsonpath).
  *" get storageclass "*)
    if [[ -f ${STATE}/no-default-sc ]]; then printf '\n\n'; else printf '\ntrue\n'; fi ;;
  *" apply "*)
    printf '%s\n' "${PWD}" >"${STATE}/apply-cwd"
    if [[ " $* " == *" -f - "* ]]; then printf '%s\n' "$(</dev/stdin)" >"${STATE}/apply-stdin"; fi
    printf '%s\n' "${KUBECONFIG:-}" >"${STATE}/apply-kubeconfig"
    if [[ -f ${STATE}/apply-fails ]]; then
      echo 'error: error parsing deploy/monitoring/monitoring-stack.yaml: error converting YAML to JSON' >&2
      exit 1
    fi
    if [[ -f ${STATE}/apply-output ]]; then printf '%s\n' "$(<"${STATE}/apply-output")"; fi ;;
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
  export MONITORING_REGISTRY=mirror.example.com:5001/upstream
}

# deploy ARGS...: the script with the stubs' PATH (the test itself keeps the full PATH).
deploy() { run --separate-stderr env PATH="${TEST_PATH}" "${SCRIPT}" "$@"; }

INCLUSTER_HELM="helm upgrade --install gshare charts/gshare -n gshare-system --create-namespace -f deploy/values/incluster.yaml --wait --timeout 15m"
PROD_HELM="helm upgrade --install gshare charts/gshare -n gshare-system --create-namespace -f deploy/values/dockerhub.yaml --wait --timeout 15m"
TEMPORAL_HELM="helm upgrade --install temporal temporal --repo https://charts.example.com/temporal --version 1.6.0 -n temporal --create-namespace -f deploy/temporal/values.yaml --wait --timeout 15m"
MONITORING_APPLY="kubectl apply -f -"

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
  for args in "" "bogus" "--bogus incluster" "incluster prod" "incluster --context" "temporal --context --dry-run" "--dry-run" \
    "monitoring temporal" "monitoring --context" "--bogus monitoring"; do
    # shellcheck disable=SC2086 # split on purpose
    deploy ${args}
    if [ "${status}" -ne 2 ]; then
      echo "args '${args}': expected exit 2, got ${status}; stderr: ${stderr}" >&2
      return 1
    fi
    grep -q '^Usage: hack/deploy.sh <incluster|prod|temporal|monitoring> \[--dry-run\] \[--context NAME\]$' <<<"${stderr}" || {
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

# --- monitoring (make deploy-monitoring): kubectl apply of deploy/monitoring/monitoring-stack.yaml, no helm

@test "monitoring: kubectl apply -f deploy/monitoring/monitoring-stack.yaml from the repo root, without helm" {
  rm "${BIN}/helm"
  deploy monitoring
  [ "${status}" -eq 0 ]
  assert_call "kubectl config current-context"
  assert_call "${MONITORING_APPLY}"
  [ "$(grep -c ' apply ' "${LOG}")" -eq 1 ]
  [ "$(cat "${STATE}/apply-cwd")" = "${ROOT}" ]
  # The default StorageClass was looked for before the apply; nothing was restarted.
  [ "$(line_of '^kubectl get storageclass ')" -lt "$(line_of ' apply ')" ]
  if grep -q 'rollout' "${LOG}"; then show_calls && false; fi
  [[ ${stderr} == *"kubectl context kind-gshare"* ]]
  [[ ${stderr} == *"port-forward svc/prometheus 9090"* ]]
  [[ ${stderr} == *"http://prometheus.monitoring.svc:9090"* ]]
  [[ ${stderr} != *"warning"* ]]
  [ -z "${output}" ]
  # kubectl read the manifest with the operator's registry in every image, and the placeholder nowhere.
  [ "$(grep -c '^ *image: mirror.example.com:5001/upstream/' "${STATE}/apply-stdin")" -eq 4 ]
  if grep -q 'registry.example.com/' "${STATE}/apply-stdin"; then false; fi
  grep -q 'image: mirror.example.com:5001/upstream/prom/prometheus:v' "${STATE}/apply-stdin"
}

@test "monitoring refuses without MONITORING_REGISTRY, or with one that is not a registry, and calls nothing" {
  for registry in "" "https://mirror.example.com" "two words"; do
    : >"${LOG}"
    MONITORING_REGISTRY="${registry}" deploy monitoring
    [ "${status}" -eq 1 ]
    [[ ${stderr} == *"MONITORING_REGISTRY"* ]]
    if grep -q ' apply ' "${LOG}"; then show_calls && false; fi
  done
  # Without one, it names every image it needs, by its path under the registry.
  MONITORING_REGISTRY="" deploy monitoring
  [[ ${stderr} == *"  prom/prometheus:"* ]]
  [[ ${stderr} == *"  nvidia/k8s/dcgm-exporter:"* ]]
  [[ ${stderr} == *"  kube-state-metrics/kube-state-metrics:"* ]]
  [[ ${stderr} == *"  prom/node-exporter:"* ]]
}

@test "monitoring: KUBECONFIG reaches kubectl; --context is checked and passed to every kubectl call" {
  export KUBECONFIG="${BATS_TEST_TMPDIR}/lab.kubeconfig"
  deploy monitoring --context lab-prod
  [ "${status}" -eq 0 ]
  assert_call "kubectl config get-contexts -o name"
  assert_call "kubectl --context lab-prod ${MONITORING_APPLY#kubectl }"
  grep -q '^kubectl --context lab-prod get storageclass ' "${LOG}" || { show_calls && false; }
  [ "$(cat "${STATE}/apply-kubeconfig")" = "${KUBECONFIG}" ]
  if grep -q 'current-context' "${LOG}"; then show_calls && false; fi

  : >"${LOG}"
  deploy monitoring --context nope
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"no context named nope"* ]]
  if grep -q ' apply ' "${LOG}"; then show_calls && false; fi
}

@test "monitoring --dry-run prints the exact kubectl command and applies nothing" {
  local rewrite="sed s#registry.example.com/#mirror.example.com:5001/upstream/#g deploy/monitoring/monitoring-stack.yaml | "
  deploy monitoring --dry-run
  [ "${status}" -eq 0 ]
  [ "${output}" = "${rewrite}${MONITORING_APPLY}" ]
  deploy --dry-run --context=lab-prod monitoring
  [ "${status}" -eq 0 ]
  [ "${output}" = "${rewrite}kubectl --context lab-prod ${MONITORING_APPLY#kubectl }" ]
  if grep -q ' apply ' "${LOG}"; then show_calls && false; fi
  # The checks still ran.
  assert_call "kubectl config current-context"
}

@test "monitoring refuses without kubectl, naming make tools, and calls nothing" {
  rm "${BIN}/kubectl"
  deploy monitoring
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"kubectl not found"* ]]
  [[ ${stderr} == *"make tools"* ]]
  [[ ${stderr} != *"helm"*"not found"* ]]
  [ ! -s "${LOG}" ]
}

@test "monitoring refuses without a current kubectl context, saying how to set one" {
  touch "${STATE}/no-context"
  deploy monitoring
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"no current kubectl context"* ]]
  [[ ${stderr} == *"kubectl config use-context"* ]]
  [[ ${stderr} == *"--context"* ]]
  if grep -q ' apply \| get ' "${LOG}"; then show_calls && false; fi
}

@test "monitoring refuses when the manifest is missing, before touching the cluster" {
  rm "${ROOT}/deploy/monitoring/monitoring-stack.yaml"
  deploy monitoring
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"deploy/monitoring/monitoring-stack.yaml is missing"* ]]
  [ ! -s "${LOG}" ]
}

@test "monitoring: an unreachable cluster is reported before the apply; a failing apply exits 1 with a message" {
  touch "${STATE}/unreachable"
  deploy monitoring
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"connection to the server"* ]]
  if grep -q ' apply ' "${LOG}"; then show_calls && false; fi

  rm "${STATE}/unreachable"
  touch "${STATE}/apply-fails"
  deploy monitoring
  [ "${status}" -eq 1 ]
  [[ ${stderr} == *"error converting YAML to JSON"* ]]
  [[ ${stderr} == *"kubectl apply -f deploy/monitoring/monitoring-stack.yaml failed in context kind-gshare"* ]]
  if grep -q 'rollout' "${LOG}"; then show_calls && false; fi
}

@test "monitoring warns when the cluster has no default StorageClass, and still applies" {
  touch "${STATE}/no-default-sc"
  deploy monitoring
  [ "${status}" -eq 0 ]
  [[ ${stderr} == *"no default StorageClass"* ]]
  [[ ${stderr} == *"monitoring/prometheus-data"* ]]
  [[ ${stderr} == *"is-default-class=true"* ]]
  assert_call "${MONITORING_APPLY}"
}

@test "monitoring: a changed prometheus.yml or DCGM field list restarts what reads it, nothing else" {
  printf '%s\n' "namespace/monitoring unchanged" "configmap/dcgm-exporter-metrics unchanged" \
    "configmap/prometheus-config configured" "deployment.apps/prometheus unchanged" >"${STATE}/apply-output"
  deploy monitoring
  [ "${status}" -eq 0 ]
  assert_call "kubectl --namespace monitoring rollout restart deployment/prometheus"
  [ "$(grep -c 'rollout' "${LOG}")" -eq 1 ]
  [ "$(line_of ' apply ')" -lt "$(line_of 'rollout')" ]
  [[ ${stderr} == *"configmap/prometheus-config configured"* ]]

  : >"${LOG}"
  printf '%s\n' "configmap/dcgm-exporter-metrics configured" "configmap/prometheus-config unchanged" >"${STATE}/apply-output"
  deploy monitoring --context lab-prod
  [ "${status}" -eq 0 ]
  assert_call "kubectl --context lab-prod --namespace monitoring rollout restart daemonset/dcgm-exporter"
  [ "$(grep -c 'rollout' "${LOG}")" -eq 1 ]
}

@test "make deploy-monitoring runs kubectl apply -f deploy/monitoring/monitoring-stack.yaml (stub kubectl), DEPLOY_ARGS passed" {
  run --separate-stderr make -s -n -C "${REAL_ROOT}" deploy-monitoring
  [ "${status}" -eq 0 ]
  [ "${output}" = "hack/deploy.sh monitoring " ]
  run --separate-stderr make -s -n -C "${REAL_ROOT}" deploy-monitoring DEPLOY_ARGS="--dry-run --context lab-prod"
  [ "${status}" -eq 0 ]
  [ "${output}" = "hack/deploy.sh monitoring --dry-run --context lab-prod" ]
  [ ! -s "${LOG}" ]
  grep -q '^deploy-monitoring: ## .*monitoring-stack.yaml' "${REAL_ROOT}/Makefile"

  # The target itself, from a copy of the Makefile in the temporary repo, with only the stubs on PATH.
  cp "${REAL_ROOT}/Makefile" "${ROOT}/Makefile"
  local make_bin
  make_bin="$(command -v make)"
  run --separate-stderr env PATH="${TEST_PATH}" "${make_bin}" -s -C "${ROOT}" deploy-monitoring
  [ "${status}" -eq 0 ]
  assert_call "${MONITORING_APPLY}"
  [ "$(cat "${STATE}/apply-cwd")" = "${ROOT}" ]

  # make help lists it.
  run --separate-stderr make -s -C "${REAL_ROOT}" help
  [[ ${output} == *"deploy-monitoring"* ]]
}
