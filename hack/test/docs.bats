#!/usr/bin/env bats
# hack/check-docs.py: passes on the repository, and fails, naming the fault, on copies of it with one fault each
# (a broken link, a missing anchor, a README too long, a wrong "May depend on", a test class that does not exist).
# shellcheck disable=SC2154,SC2016 # status and stderr are set by bats' run; the faults are literal Markdown

REPO_ROOT="$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd -P)"
CHECK="${REPO_ROOT}/hack/check-docs.py"

setup() {
  bats_require_minimum_version 1.5.0
  COPY="${BATS_TEST_TMPDIR}/repo"
  mkdir -p "${COPY}"
  # The sources without build output, tools or history: a few MB.
  tar -C "${REPO_ROOT}" --exclude=./.git --exclude=target --exclude=node_modules --exclude=./.tools -cf - . |
    tar -C "${COPY}" -xf -
}

# check_fails <expected message part>: the checker on the copy exits 1 and names the fault on stderr.
check_fails() {
  run --separate-stderr python3 "${CHECK}" --root "${COPY}"
  [ "${status}" -eq 1 ] || {
    echo "expected exit 1, got ${status}; stderr: ${stderr}" >&2
    return 1
  }
  grep -qF -- "$1" <<<"${stderr}" || {
    echo "stderr lacks '$1': ${stderr}" >&2
    return 1
  }
}

@test "the repository passes" {
  run --separate-stderr python3 "${CHECK}"
  [ "${status}" -eq 0 ] || {
    echo "${stderr}" >&2
    return 1
  }
}

@test "the untouched copy passes (the faults below are the only change)" {
  run --separate-stderr python3 "${CHECK}" --root "${COPY}"
  [ "${status}" -eq 0 ]
}

@test "a link to a missing file fails" {
  printf '\nSee [nowhere](docs/no-such-page.md).\n' >>"${COPY}/docs/api.md"
  check_fails "docs/api.md:"
  check_fails "link 'docs/no-such-page.md': no such file or directory"
}

@test "a link to a missing anchor fails" {
  printf '\nSee [the needs](development.md#no-such-heading).\n' >>"${COPY}/docs/cli.md"
  check_fails "has no heading with anchor '#no-such-heading'"
}

@test "a same-page anchor that is not a heading fails" {
  printf '\nSee [above](#not-a-heading-here).\n' >>"${COPY}/cli/README.md"
  check_fails "cli/README.md:"
  check_fails "'#not-a-heading-here'"
}

@test "links in code are not links" {
  printf '\n```sh\necho "[x](no-such-file.md)"\n```\n\nAnd `[y](no-such-file.md)` inline.\n' >>"${COPY}/docs/api.md"
  run --separate-stderr python3 "${CHECK}" --root "${COPY}"
  [ "${status}" -eq 0 ]
}

@test "a README of 6,000 characters or more fails" {
  python3 -c 'import sys; open(sys.argv[1], "a").write("\n" + "x" * 6000 + "\n")' "${COPY}/README.md"
  check_fails "README.md: "
  check_fails "the limit is under 6000"
}

@test "a May depend on that leaves out a pom dependency fails" {
  sed -i 's/`gshare-core` (the control/core (the control/' "${COPY}/control-activities/README.md"
  check_fails "control-activities/README.md: 'May depend on' does not name \`gshare-core\`"
}

@test "a May depend on that names a module the pom does not depend on fails" {
  sed -i 's/`gshare-workflows`, `gshare-cluster-activities`, `gshare-internal-contract` (the reports/`gshare-workflows`, `gshare-cluster-activities`, `gshare-core`, `gshare-internal-contract` (the reports/' \
    "${COPY}/cluster-worker/README.md"
  check_fails "cluster-worker/README.md: 'May depend on' names \`gshare-core\` at compile scope"
}

@test "a test-scope dependency named as a compile one fails" {
  sed -i 's/Tests use `gshare-cli`/`gshare-cli` and tests use/' "${COPY}/dev-runtime/README.md"
  check_fails "'May depend on' names \`gshare-cli\` at compile scope"
}

@test "a module README without May depend on fails" {
  sed -i 's/^## May depend on$/## Dependencies/' "${COPY}/workflows/README.md"
  check_fails "workflows/README.md: no '## May depend on' section"
}

@test "a test class that does not exist fails" {
  printf '\nAlso `NoSuchThingIT` and `NoSuchThingTest`.\n' >>"${COPY}/docs/development.md"
  check_fails "names test class \`NoSuchThingIT\`"
  check_fails "names test class \`NoSuchThingTest\`"
}

@test "a test class deleted from the sources fails where a README names it" {
  find "${COPY}" -path '*/src/test/java/*' -name 'NamingTest.java' -delete
  check_fails "names test class \`NamingTest\`"
}

@test "bad arguments print the usage and exit 2" {
  run --separate-stderr python3 "${CHECK}" --bogus
  [ "${status}" -eq 2 ]
  grep -q '^usage: hack/check-docs.py \[--root DIR\]' <<<"${stderr}"
  run --separate-stderr python3 "${CHECK}" --root
  [ "${status}" -eq 2 ]
  run --separate-stderr python3 "${CHECK}" --root "${BATS_TEST_TMPDIR}/no-such-dir"
  [ "${status}" -eq 2 ]
}
