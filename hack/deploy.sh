#!/usr/bin/env bash
# Installs or upgrades gShare's control plane, or the Temporal it runs on, with helm upgrade --install into
# the current kubectl context (or the one --context names), or applies the monitoring stack there with kubectl.
# kubectl and helm come from PATH or from <repo>/.tools/bin (make tools). Run it again after a failure: every
# step is an upgrade --install or an apply.
#
# Usage: hack/deploy.sh <incluster|prod|temporal|monitoring> [--dry-run] [--context NAME]
#   incluster   charts/gshare as release gshare in namespace gshare-system, values deploy/values/incluster.yaml
#   prod        the same with deploy/values/dockerhub.yaml, once the CloudNativePG and external-secrets CRDs
#               are in the cluster (make prod-deploy)
#   temporal    the official Temporal chart as release temporal in namespace temporal, values
#               deploy/temporal/values.yaml, once the Secrets those values name exist (deploy/temporal/README.md)
#   monitoring  kubectl apply -f deploy/monitoring/monitoring-stack.yaml: dcgm-exporter, node-exporter,
#               kube-state-metrics and Prometheus in namespace monitoring (make deploy-monitoring; no helm needed)
#   --dry-run   print the helm or kubectl command instead of running it (the tool, context and cluster checks still run)
#   --context   the kubectl context to deploy to (default: the current context)
#
# Environment:
#   KUBECONFIG              read by kubectl and helm as usual (the kubeconfig the contexts come from)
#   TOOLS_DIR               where make tools installs kubectl and helm (default: <repo>/.tools)
#   TEMPORAL_CHART_REPO     required by temporal: the URL of the Temporal project's Helm repository (named in the
#                           README of temporalio/helm-charts) or of your mirror of it
#   TEMPORAL_CHART_VERSION  ${TEMPORAL_CHART_VERSION:-1.6.0}, the chart version (1.6.0 = Temporal server 1.31.2)
#   DEPLOY_TIMEOUT          ${DEPLOY_TIMEOUT:-15m}, helm's --timeout
#   MONITORING_REGISTRY     required by monitoring: the registry (or pull-through mirror) that serves the stack's
#                           images under their upstream paths (nvidia/k8s/dcgm-exporter, prom/node-exporter,
#                           kube-state-metrics/kube-state-metrics, prom/prometheus), e.g. registry.example.com/mirror;
#                           it replaces the manifest's placeholder registry.example.com
# Exit status: 0 deployed (or printed), 1 refused or failed, 2 usage error.
set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
TOOLS_DIR="${TOOLS_DIR:-${REPO_ROOT}/.tools}"
TEMPORAL_CHART_REPO="${TEMPORAL_CHART_REPO:-}"
MONITORING_REGISTRY="${MONITORING_REGISTRY:-}"
# The manifest's placeholder for the registry of every image (replaced by MONITORING_REGISTRY).
MONITORING_PLACEHOLDER="registry.example.com/"
TEMPORAL_CHART_VERSION="${TEMPORAL_CHART_VERSION:-1.6.0}"
DEPLOY_TIMEOUT="${DEPLOY_TIMEOUT:-15m}"

GSHARE_CHART="charts/gshare"
GSHARE_NAMESPACE="gshare-system"
TEMPORAL_VALUES="deploy/temporal/values.yaml"
TEMPORAL_NAMESPACE="temporal"
MONITORING_STACK="deploy/monitoring/monitoring-stack.yaml"
MONITORING_NAMESPACE="monitoring"
# The monitoring stack's ConfigMaps, each with the workload that reads it only at start: when `kubectl apply`
# reports one configured, that workload is restarted so that the change takes effect.
MONITORING_RESTARTS=(
  "configmap/prometheus-config|deployment/prometheus"
  "configmap/dcgm-exporter-metrics|daemonset/dcgm-exporter"
)
# The CRDs the prod values rely on, each with what installs it.
PROD_CRDS=(
  "clusters.postgresql.cnpg.io|the CloudNativePG operator"
  "externalsecrets.external-secrets.io|the External Secrets Operator"
)

info() { printf 'deploy: %s\n' "$*" >&2; }
fatal() { printf 'deploy: error: %s\n' "$*" >&2; exit 1; }

# usage [all]: the Usage block of the header above (all: the whole header, for --help).
usage() {
  local lines='/^# Usage:/,/^#   --context/p'
  if [[ ${1:-} == all ]]; then lines='2,/^# Exit status:/p'; fi
  sed -n "${lines}" "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

usage_error() {
  printf 'deploy: %s\n' "$*" >&2
  usage
  exit 2
}

# find_tool NAME: the command to run NAME by, from PATH or else TOOLS_DIR/bin.
find_tool() {
  if command -v "$1" >/dev/null 2>&1; then
    printf '%s' "$1"
  elif [[ -x ${TOOLS_DIR}/bin/$1 ]]; then
    printf '%s' "${TOOLS_DIR}/bin/$1"
  else
    return 1
  fi
}

# require_file PATH WHAT: refuse when PATH (relative to the repo) is not a file.
require_file() {
  [[ -f ${REPO_ROOT}/$1 ]] || fatal "$2 $1 is missing from ${REPO_ROOT}"
}

# select_context: the context to deploy to, checked; sets CONTEXT and the --context flags for kubectl/helm.
select_context() {
  if [[ -n ${CONTEXT} ]]; then
    local contexts name found=0
    contexts="$("${KUBECTL}" config get-contexts -o name 2>/dev/null)" || contexts=""
    while IFS= read -r name; do
      if [[ ${name} == "${CONTEXT}" ]]; then found=1; fi
    done <<<"${contexts}"
    [[ ${found} -eq 1 ]] ||
      fatal "kubectl has no context named ${CONTEXT}: pick one of \`kubectl config get-contexts -o name\`, or add it to your kubeconfig"
    KUBECTL_FLAGS=(--context "${CONTEXT}")
    HELM_FLAGS=(--kube-context "${CONTEXT}")
  else
    if ! CONTEXT="$("${KUBECTL}" config current-context 2>/dev/null)" || [[ -z ${CONTEXT} ]]; then
      fatal "no current kubectl context: set one with \`kubectl config use-context NAME\` (\`kubectl config get-contexts\` lists them) or pass --context NAME"
    fi
  fi
}

# kube_exists RESOURCE...: 0 when `kubectl get RESOURCE...` finds it, 1 when the cluster says NotFound;
# any other failure (cluster unreachable, no permission) is fatal.
kube_exists() {
  local err
  if err="$("${KUBECTL}" "${KUBECTL_FLAGS[@]}" get "$@" -o name 2>&1 >/dev/null)"; then
    return 0
  fi
  if [[ ${err} == *NotFound* || ${err} == *"not found"* ]]; then
    return 1
  fi
  fatal "kubectl get $* failed in context ${CONTEXT}: ${err:-no message}"
}

check_prod_crds() {
  local entry crd missing=()
  for entry in "${PROD_CRDS[@]}"; do
    crd=${entry%%|*}
    kube_exists crd "${crd}" || missing+=("the CRD ${crd}: install ${entry#*|}")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    local m
    for m in "${missing[@]}"; do info "missing ${m}"; done
    fatal "context ${CONTEXT} lacks what deploy/values/dockerhub.yaml relies on; install the operator(s) above, then run this again"
  fi
}

# The Secrets deploy/temporal/values.yaml names (existingSecret:, comments left out): the schema job, a
# pre-install hook, would otherwise wait the whole timeout for a Secret that is not there.
check_temporal_secrets() {
  local secret absent=0
  while IFS= read -r secret; do
    [[ -n ${secret} ]] || continue
    if ! kube_exists --namespace "${TEMPORAL_NAMESPACE}" secret "${secret}"; then
      info "missing the Secret ${TEMPORAL_NAMESPACE}/${secret} (existingSecret in ${TEMPORAL_VALUES}), e.g.:"
      info "  kubectl create namespace ${TEMPORAL_NAMESPACE}"
      info "  kubectl --namespace ${TEMPORAL_NAMESPACE} create secret generic ${secret} --from-literal=password='<the database password>'"
      absent=1
    fi
  done < <(sed -n 's/^[[:space:]]*existingSecret:[[:space:]]*["'\'']\{0,1\}\([^"'\''#[:space:]]*\).*/\1/p' \
    "${REPO_ROOT}/${TEMPORAL_VALUES}" | sort -u)
  [[ ${absent} -eq 0 ]] || fatal "create the Secret(s) above in context ${CONTEXT} (deploy/temporal/README.md), then run this again"
}

# run_helm ARGS...: helm ARGS from the repo root (the paths are relative to it), or printed with --dry-run.
run_helm() {
  local cmd=("${HELM}" "$@" "${HELM_FLAGS[@]}")
  if [[ ${DRY_RUN} -eq 1 ]]; then
    print_command "${cmd[@]}"
    return 0
  fi
  (cd "${REPO_ROOT}" && "${cmd[@]}") || fatal "helm upgrade --install failed in context ${CONTEXT} (see above); fix it and run this again"
}

deploy_gshare() {
  local values=$1
  run_helm upgrade --install gshare "${GSHARE_CHART}" -n "${GSHARE_NAMESPACE}" --create-namespace \
    -f "${values}" --wait --timeout "${DEPLOY_TIMEOUT}"
  if [[ ${DRY_RUN} -eq 0 ]]; then
    info "gShare is deployed in ${GSHARE_NAMESPACE} (context ${CONTEXT})"
  fi
}

deploy_temporal() {
  [[ -n ${TEMPORAL_CHART_REPO} ]] \
    || fatal "set TEMPORAL_CHART_REPO to the Temporal project's Helm repository (the README of temporalio/helm-charts names it) or your mirror of it"
  run_helm upgrade --install temporal temporal --repo "${TEMPORAL_CHART_REPO}" --version "${TEMPORAL_CHART_VERSION}" \
    -n "${TEMPORAL_NAMESPACE}" --create-namespace -f "${TEMPORAL_VALUES}" --wait --timeout "${DEPLOY_TIMEOUT}"
  # No search-attribute step: gShare's api registers GshareClusterId, GshareSessionId, GshareUserId,
  # GshareNodeId and GshareVolumeId itself at every start (SearchAttributeRegistrar, idempotent, retried
  # while Temporal is unreachable). deploy/temporal/README.md has the manual commands.
  if [[ ${DRY_RUN} -eq 0 ]]; then
    info "Temporal is deployed in ${TEMPORAL_NAMESPACE} (context ${CONTEXT}): gShare's GSHARE_TEMPORAL_ADDRESS is"
    info "temporal-frontend.${TEMPORAL_NAMESPACE}.svc:7233; the api registers its search attributes when it starts"
  fi
}

# print_command ARGS...: the command, shell-quoted, on stdout (--dry-run).
print_command() {
  local quoted=() word
  for word in "$@"; do quoted+=("$(printf '%q' "${word}")"); done
  printf '%s\n' "${quoted[*]}"
}

# Prometheus's claim names no StorageClass: without a default one it stays Pending (until one is marked default:
# the claim then gets it). A warning, not a refusal; a cluster that does not answer is fatal, as elsewhere.
check_default_storage_class() {
  local defaults
  defaults="$("${KUBECTL}" "${KUBECTL_FLAGS[@]}" get storageclass \
    -o 'jsonpath={range .items[*]}{.metadata.annotations.storageclass\.kubernetes\.io/is-default-class}{"\n"}{end}' 2>&1)" ||
    fatal "kubectl get storageclass failed in context ${CONTEXT}: ${defaults:-no message}"
  if [[ $'\n'${defaults}$'\n' != *$'\n'true$'\n'* ]]; then
    info "warning: context ${CONTEXT} has no default StorageClass: Prometheus's claim ${MONITORING_NAMESPACE}/prometheus-data"
    info "stays Pending until one is marked: kubectl annotate storageclass NAME storageclass.kubernetes.io/is-default-class=true"
  fi
}

# The images of the monitoring stack, by their paths under MONITORING_REGISTRY, one per line.
monitoring_images() {
  sed -n "s#^[[:space:]]*image: ${MONITORING_PLACEHOLDER}##p" "${REPO_ROOT}/${MONITORING_STACK}" | sort -u
}

deploy_monitoring() {
  if [[ -z ${MONITORING_REGISTRY} ]]; then
    printf 'deploy: error: %s\n' "set MONITORING_REGISTRY to the registry (or pull-through mirror) that serves the monitoring images under these paths:" >&2
    monitoring_images | sed 's/^/  /' >&2
    fatal "e.g. MONITORING_REGISTRY=registry.example.com/mirror make deploy-monitoring (docs/operator/monitoring.md)"
  fi
  [[ ${MONITORING_REGISTRY} =~ ^[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._/-]+)?$ ]] \
    || fatal "MONITORING_REGISTRY must be host[:port][/path] without a scheme, not '${MONITORING_REGISTRY}'"
  local registry="${MONITORING_REGISTRY%/}/"
  local cmd=("${KUBECTL}" "${KUBECTL_FLAGS[@]}" apply -f -)
  if [[ ${DRY_RUN} -eq 1 ]]; then
    printf 'sed s#%s#%s#g %s | ' "${MONITORING_PLACEHOLDER}" "${registry}" "${MONITORING_STACK}"
    print_command "${cmd[@]}"
    return 0
  fi
  local out
  # The manifest with the operator's registry in every image, on kubectl's stdin; kubectl's own lines go to stderr.
  out="$(cd "${REPO_ROOT}" && sed "s#${MONITORING_PLACEHOLDER}#${registry}#g" "${MONITORING_STACK}" | "${cmd[@]}")" || {
    [[ -z ${out:-} ]] || printf '%s\n' "${out}" >&2
    fatal "kubectl apply -f ${MONITORING_STACK} failed in context ${CONTEXT} (see above); fix it and run this again"
  }
  [[ -z ${out} ]] || printf '%s\n' "${out}" >&2
  # Prometheus and dcgm-exporter read their ConfigMap only when they start.
  local entry
  for entry in "${MONITORING_RESTARTS[@]}"; do
    if [[ $'\n'${out}$'\n' == *$'\n'"${entry%%|*} configured"$'\n'* ]]; then
      info "${entry%%|*} changed: restarting ${entry#*|}"
      "${KUBECTL}" "${KUBECTL_FLAGS[@]}" --namespace "${MONITORING_NAMESPACE}" rollout restart "${entry#*|}" >&2 ||
        fatal "kubectl rollout restart ${entry#*|} failed in context ${CONTEXT}; run it again by hand"
    fi
  done
  info "the monitoring stack is applied in ${MONITORING_NAMESPACE} (context ${CONTEXT}); Prometheus is not exposed outside"
  info "the cluster: \`kubectl -n ${MONITORING_NAMESPACE} port-forward svc/prometheus 9090\` reaches it from here, and the"
  info "cluster's prometheus_url is http://prometheus.${MONITORING_NAMESPACE}.svc:9090 (PATCH /api/v1/clusters/{id}, docs/operator/monitoring.md)"
}

main() {
  local target="" arg
  DRY_RUN=0
  CONTEXT=""
  KUBECTL_FLAGS=()
  HELM_FLAGS=()
  while [[ $# -gt 0 ]]; do
    arg=$1
    shift
    case ${arg} in
      -h | --help)
        usage all
        return 0
        ;;
      --dry-run) DRY_RUN=1 ;;
      --context)
        [[ $# -gt 0 && -n $1 && $1 != -* ]] || usage_error "--context needs a context name"
        CONTEXT=$1
        shift
        ;;
      --context=*)
        CONTEXT=${arg#--context=}
        [[ -n ${CONTEXT} ]] || usage_error "--context needs a context name"
        ;;
      -*) usage_error "unknown option: ${arg}" ;;
      incluster | prod | temporal | monitoring)
        [[ -z ${target} ]] || usage_error "one target at a time (got ${target} and ${arg})"
        target=${arg}
        ;;
      *) usage_error "unknown target: ${arg} (incluster, prod, temporal or monitoring)" ;;
    esac
  done
  [[ -n ${target} ]] || usage_error "which target: incluster, prod, temporal or monitoring?"

  local missing=()
  # The monitoring stack is plain manifests: kubectl alone.
  if [[ ${target} != monitoring ]]; then HELM="$(find_tool helm)" || missing+=(helm); fi
  KUBECTL="$(find_tool kubectl)" || missing+=(kubectl)
  [[ ${#missing[@]} -eq 0 ]] ||
    fatal "${missing[*]} not found on PATH or in ${TOOLS_DIR}/bin: run \`make tools\` (hack/tools.sh installs kubectl and helm there)"

  local values
  case ${target} in
    incluster | prod)
      if [[ ${target} == incluster ]]; then values="deploy/values/incluster.yaml"; else values="deploy/values/dockerhub.yaml"; fi
      require_file "${GSHARE_CHART}/Chart.yaml" "the gShare chart:"
      require_file "${values}" "the ${target} values file"
      ;;
    temporal) require_file "${TEMPORAL_VALUES}" "the Temporal values file" ;;
    monitoring) require_file "${MONITORING_STACK}" "the monitoring stack" ;;
  esac

  select_context
  info "target ${target}, kubectl context ${CONTEXT}$([[ ${DRY_RUN} -eq 0 ]] || printf ' (dry run: nothing is installed)')"
  case ${target} in
    incluster) deploy_gshare "${values}" ;;
    prod)
      check_prod_crds
      deploy_gshare "${values}"
      ;;
    temporal)
      check_temporal_secrets
      deploy_temporal
      ;;
    monitoring)
      check_default_storage_class
      deploy_monitoring
      ;;
  esac
}

main "$@"
