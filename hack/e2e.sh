#!/usr/bin/env bash
# The console's browser tests (e2e/run.mjs): Debian's chromium driven by playwright-core against the dev runtime's
# parts, its OpenID Connect provider and a real nginx. Installs chromium from Debian's packages when it is missing
# (as root; otherwise it says how), and playwright-core from npm (e2e/package-lock.json).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: hack/e2e.sh            run the browser tests (needs make build's jars and make tools)
       hack/e2e.sh --install  only install chromium and playwright-core
env:   GSHARE_CHROMIUM        the browser to drive (default: /usr/bin/chromium)
USAGE
}

info() { echo "e2e: $*" >&2; }
fatal() { echo "e2e: $*" >&2; exit 1; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHROMIUM="${GSHARE_CHROMIUM:-/usr/bin/chromium}"

install_chromium() {
  [ -x "${CHROMIUM}" ] && return 0
  command -v apt-get >/dev/null 2>&1 || fatal "no ${CHROMIUM} and no apt-get: install chromium, or set GSHARE_CHROMIUM"
  [ "$(id -u)" -eq 0 ] || fatal "no ${CHROMIUM}: run 'sudo apt-get install -y chromium' (Debian's package), or set GSHARE_CHROMIUM"
  info "installing chromium from Debian's packages"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
  fi
}

install_playwright() {
  command -v npm >/dev/null 2>&1 || fatal "npm is required (Node.js)"
  (cd "${ROOT}/e2e" && npm ci --no-audit --no-fund --silent)
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --install) install_chromium; install_playwright; exit 0 ;;
  "") ;;
  *) usage >&2; exit 2 ;;
esac

install_chromium
install_playwright
GSHARE_CHROMIUM="${CHROMIUM}" exec node "${ROOT}/e2e/run.mjs"
