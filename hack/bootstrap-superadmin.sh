#!/usr/bin/env bash
# Prints an API token of gShare's super admin, creating the super admin on the first run only.
#
# Usage: hack/bootstrap-superadmin.sh [--dev | --cluster] [--email EMAIL] [--namespace NS]
#   ADMIN_JWT=$(./hack/bootstrap-superadmin.sh)
#
#   --dev         against the running dev runtime (make dev), found through .gshare-dev/runtime.env
#   --cluster     inside the api pod: kubectl exec deploy/gshare-api -c api (the current kubectl context)
#   --email       the super admin's email when one is created (default superadmin@example.com)
#   --namespace   where gShare runs in the cluster (default gshare-system)
# Without --dev or --cluster: --dev when a dev runtime is running here, else --cluster.
#
# Environment:
#   GSHARE_DEV_STATE   the dev runtime's state file (default <repo>/.gshare-dev/runtime.env)
#   GSHARE_API_LAUNCH_IN_POD  how the api is started inside its image (default: the Jib image's classpath
#                  and main class files, java -cp @/app/jib-classpath-file @/app/jib-main-class-file)
# Only the token goes to stdout; everything else to stderr. Running it again issues another token for
# the same super admin.
set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
GSHARE_DEV_STATE="${GSHARE_DEV_STATE:-${REPO_ROOT}/.gshare-dev/runtime.env}"
GSHARE_API_LAUNCH_IN_POD="${GSHARE_API_LAUNCH_IN_POD:-java -cp @/app/jib-classpath-file @/app/jib-main-class-file}"

fatal() { printf 'bootstrap-superadmin: %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

usage_error() {
  printf 'bootstrap-superadmin: %s\n' "$*" >&2
  usage
  exit 2
}

run_dev() {
  local email="$1"
  [ -f "${GSHARE_DEV_STATE}" ] || fatal "no dev runtime state at ${GSHARE_DEV_STATE}: start one with 'make dev'"
  command -v java >/dev/null 2>&1 || fatal "java is not on PATH"
  local line key value
  local -a env_args=()
  while IFS= read -r line; do
    case "${line}" in ''|'#'*) continue ;; esac
    key="${line%%=*}"
    value="${line#*=}"
    case "${key}" in
      GSHARE_DB_URL|GSHARE_DB_USER|GSHARE_DB_PASSWORD|GSHARE_SECURITY_KEY_DIR|GSHARE_API_JAR) env_args+=("${key}=${value}") ;;
    esac
  done < "${GSHARE_DEV_STATE}"
  local jar
  jar="$(printf '%s\n' "${env_args[@]}" | sed -n 's/^GSHARE_API_JAR=//p')"
  if [ -z "${jar}" ] || [ ! -f "${jar}" ]; then
    fatal "the api jar named in ${GSHARE_DEV_STATE} is missing (run 'make build')"
  fi
  env "${env_args[@]}" java -jar "${jar}" bootstrap-superadmin --email "${email}"
}

run_cluster() {
  local email="$1" namespace="$2"
  command -v kubectl >/dev/null 2>&1 || fatal "kubectl is not on PATH (hack/tools.sh installs one into .tools/bin)"
  local launch
  read -r -a launch <<<"${GSHARE_API_LAUNCH_IN_POD}"
  kubectl -n "${namespace}" exec deploy/gshare-api -c api -- \
    "${launch[@]}" bootstrap-superadmin --email "${email}"
}

main() {
  local mode="" email="superadmin@example.com" namespace="gshare-system"
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --dev) mode=dev ;;
      --cluster) mode=cluster ;;
      --email) [ "$#" -ge 2 ] || usage_error "--email needs a value"; email="$2"; shift ;;
      --namespace) [ "$#" -ge 2 ] || usage_error "--namespace needs a value"; namespace="$2"; shift ;;
      -h|--help) usage; return 0 ;;
      *) usage_error "unknown argument: $1" ;;
    esac
    shift
  done
  case "${email}" in *@*) ;; *) usage_error "--email '${email}' is not an email address" ;; esac
  if [ -z "${mode}" ]; then
    if [ -f "${GSHARE_DEV_STATE}" ]; then mode=dev; else mode=cluster; fi
  fi
  if [ "${mode}" = dev ]; then
    run_dev "${email}"
  else
    run_cluster "${email}" "${namespace}"
  fi
}

main "$@"
