#!/bin/sh
# register-local-cluster.sh - registers the cluster this Job runs in with its own gShare control plane (the
# chart's post-install/post-upgrade hook Job gshare-register-local-cluster). Idempotent:
#   1. waits for the api Deployment's rollout and for GET /healthz through its Service;
#   2. reads the long-lived token of the ServiceAccount gshare-register (its Secret gshare-register-token, not the
#      pod's own token, which dies with the pod) and makes a kubeconfig for https://kubernetes.default.svc;
#   3. asks the api container for a super admin token, as hack/bootstrap-superadmin.sh --cluster does
#      (kubectl exec deploy/gshare-api -c api -- <api CLI> bootstrap-superadmin);
#   4. POST /api/v1/clusters: 202 registered (the attach workflow runs on; follow it in the console or at
#      GET /api/v1/operations/<id>), 409 a cluster of that name is already registered: both are success.
#
# Environment (set by the Job): NAMESPACE, API_URL, API_DEPLOYMENT, API_CLI (the api image's CLI command line),
# CLUSTER_NAME, SESSION_DOMAIN, INGRESS_NODE (may be empty), ADMIN_EMAIL, TOKEN_SECRET, KUBE_SERVER,
# WAIT_TRIES, WAIT_INTERVAL (seconds), WORK_DIR (a writable directory).
# Needs sh, curl, kubectl, base64, sed, awk. No token is ever printed.
set -eu

WAIT_TRIES="${WAIT_TRIES:-120}"
WAIT_INTERVAL="${WAIT_INTERVAL:-5}"
WORK_DIR="${WORK_DIR:-/tmp}"
KUBE_SERVER="${KUBE_SERVER:-https://kubernetes.default.svc}"

log() { printf 'register-local-cluster: %s\n' "$*" >&2; }
fail() {
  log "error: $*"
  exit 1
}

# json_string: stdin as the contents of a JSON string (without the quotes).
json_string() {
  tr -d '\r' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }'
}

require_env() {
  for name in "$@"; do
    eval "value=\${${name}:-}"
    # shellcheck disable=SC2154 # value is set by the eval
    [ -n "${value}" ] || fail "${name} is not set"
  done
}

wait_for_api() {
  log "waiting for deploy/${API_DEPLOYMENT} in ${NAMESPACE}"
  kubectl -n "${NAMESPACE}" rollout status "deploy/${API_DEPLOYMENT}" --timeout="$((WAIT_TRIES * WAIT_INTERVAL))s" >&2 ||
    fail "deploy/${API_DEPLOYMENT} did not become ready (kubectl -n ${NAMESPACE} describe deploy/${API_DEPLOYMENT})"
  tries=0
  until curl -fsS -o /dev/null --max-time 5 "${API_URL}/healthz"; do
    tries=$((tries + 1))
    [ "${tries}" -lt "${WAIT_TRIES}" ] || fail "${API_URL}/healthz did not answer after ${tries} tries"
    sleep "${WAIT_INTERVAL}"
  done
}

# Prints the kubeconfig of the ServiceAccount whose token Secret is TOKEN_SECRET.
local_kubeconfig() {
  tries=0
  while :; do
    token_b64="$(kubectl -n "${NAMESPACE}" get secret "${TOKEN_SECRET}" -o 'jsonpath={.data.token}' 2>/dev/null || true)"
    ca_b64="$(kubectl -n "${NAMESPACE}" get secret "${TOKEN_SECRET}" -o 'jsonpath={.data.ca\.crt}' 2>/dev/null || true)"
    if [ -n "${token_b64}" ] && [ -n "${ca_b64}" ]; then
      break
    fi
    tries=$((tries + 1))
    [ "${tries}" -lt "${WAIT_TRIES}" ] ||
      fail "Secret ${NAMESPACE}/${TOKEN_SECRET} has no token (is the token controller running?)"
    sleep "${WAIT_INTERVAL}"
  done
  token="$(printf '%s' "${token_b64}" | base64 -d)"
  [ -n "${token}" ] || fail "the token in ${TOKEN_SECRET} does not decode"
  cat <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: ${CLUSTER_NAME}
    cluster:
      server: ${KUBE_SERVER}
      certificate-authority-data: ${ca_b64}
users:
  - name: gshare-register
    user:
      token: ${token}
contexts:
  - name: ${CLUSTER_NAME}
    context:
      cluster: ${CLUSTER_NAME}
      user: gshare-register
current-context: ${CLUSTER_NAME}
EOF
}

admin_token() {
  tries=0
  while :; do
    # shellcheck disable=SC2086 # API_CLI is a command line: split on purpose
    if answer="$(kubectl -n "${NAMESPACE}" exec "deploy/${API_DEPLOYMENT}" -c api -- \
      ${API_CLI} bootstrap-superadmin --email "${ADMIN_EMAIL}")"; then
      answer="$(printf '%s\n' "${answer}" | tr -d '\r' | sed '/^[[:space:]]*$/d' | tail -n 1)"
      if [ -n "${answer}" ]; then
        printf '%s' "${answer}"
        return 0
      fi
    fi
    tries=$((tries + 1))
    [ "${tries}" -lt 5 ] || fail "bootstrap-superadmin in deploy/${API_DEPLOYMENT} failed ${tries} times"
    log "bootstrap-superadmin failed; trying again"
    sleep "${WAIT_INTERVAL}"
  done
}

main() {
  require_env NAMESPACE API_URL API_DEPLOYMENT API_CLI CLUSTER_NAME SESSION_DOMAIN ADMIN_EMAIL TOKEN_SECRET
  umask 077
  wait_for_api
  kubeconfig="$(local_kubeconfig)"
  log "asking deploy/${API_DEPLOYMENT} for a super admin token (${ADMIN_EMAIL})"
  admin="$(admin_token)"

  body="${WORK_DIR}/cluster.json"
  header="${WORK_DIR}/auth-header"
  answer="${WORK_DIR}/answer.json"
  trap 'rm -f "${body}" "${header}" "${answer}"' EXIT
  {
    printf '{"name":"%s"' "$(printf '%s' "${CLUSTER_NAME}" | json_string)"
    printf ',"kubeconfig":"%s"' "$(printf '%s\n' "${kubeconfig}" | json_string)"
    printf ',"session_domain":"%s"' "$(printf '%s' "${SESSION_DOMAIN}" | json_string)"
    if [ -n "${INGRESS_NODE:-}" ]; then
      printf ',"ingress_node":"%s"' "$(printf '%s' "${INGRESS_NODE}" | json_string)"
    fi
    printf '}'
  } >"${body}"
  # The token goes in a header file, not on curl's command line.
  printf 'Authorization: Bearer %s\n' "${admin}" >"${header}"

  log "registering ${CLUSTER_NAME} (session domain ${SESSION_DOMAIN}) at ${API_URL}"
  status="$(curl -sS -o "${answer}" -w '%{http_code}' -X POST -H "@${header}" -H 'Content-Type: application/json' \
    --data-binary "@${body}" "${API_URL}/api/v1/clusters")" || fail "POST ${API_URL}/api/v1/clusters failed"
  case "${status}" in
    202)
      log "registered: $(cat "${answer}")"
      log "the attach workflow runs on: follow the operation above in the console or at ${API_URL}/api/v1/operations/<id>"
      ;;
    409)
      log "already registered, nothing to do: $(cat "${answer}")"
      ;;
    *)
      fail "the api answered ${status}: $(cat "${answer}")"
      ;;
  esac
}

main "$@"
