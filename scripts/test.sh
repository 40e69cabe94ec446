#!/usr/bin/env bash
# `npm test`: sets up everything the tests need on a fresh Debian machine (apt packages, npm
# dependencies, build, services), runs typecheck + generated-file checks + format and lint + the tests' typecheck + the tap suite, stops
# what it started, and ends with the line "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/prereqs.sh

abx_require_node
# nix-bin: Nix lib evaluation; supervisor: real supervisord; docker-compose: `config -q` checks;
# prometheus: promtool for the metrics exposition; bubblewrap, util-linux (setpriv, nsenter) and
# iproute2: the sandboxed runtime-contract cases; strace: the standalone box is shown to make no network call;
# chromium (+ fonts-liberation, only recommended by it, so pages render text): the dashboard's browser tests
# (tests/ui) drive Debian's browser, as puppeteer cannot download its own. python3: the Python client's
# suite (tests/api/python-client.test.ts), on Debian's interpreter and standard library only.
# btrfs-progs (mkfs.btrfs): snapshot clones are tested on a loop-mounted btrfs (tests/api/snapshot-clones.test.ts).
abx_require_apt nix-bin supervisor docker-compose prometheus bubblewrap util-linux iproute2 strace chromium fonts-liberation python3 btrfs-progs
# docker.io (dockerd), tini, ca-certificates: the container end-to-end cases (tests/e2e).
abx_require_container_engine
abx_require_npm_build
abx_require_launcher

# Some tests run the box as uid 1000 (bubblewrap, supervisord) and Nix builds as its build users:
# both must reach this checkout. A clone inside a private directory (mktemp -d is 0700) would hide
# it, so as root grant traversal (o+x, never read) on the directories above it that lack it.
if [ "$(id -u)" -eq 0 ]; then
  dir=$(pwd -P)
  while [ "$dir" != / ]; do
    dir=$(dirname "$dir")
    if [ -n "$(find "$dir" -maxdepth 0 ! -perm -o+x)" ]; then
      abx_say "granting traversal (o+x) on $dir so uid 1000 and Nix build users can reach the checkout"
      chmod o+x "$dir"
    fi
  done
fi

abx_say "checking generated files are current"
node dist/scripts/build/generate.js --check

abx_say "checking format and lint (biome; npm run format fixes the format)"
npx biome check . || abx_die "biome found format or lint problems (above): run npm run format, then fix what it cannot"

abx_say "type-checking the tests (tap strips their types without checking them)"
npm run --silent typecheck:tests || abx_die "tsc found type errors in the tests (above): npm run typecheck:tests checks them alone"

log=$(mktemp)
# Every test's temporary files go under one directory of this run (os.tmpdir()), removed at the
# end, so a killed or failed test leaves nothing in /tmp. Mode 1777 as /tmp: boxes under test run
# agents as uids of their own, which must reach their workspaces in it.
tests_tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentbox-tests-XXXXXX")
chmod 1777 "$tests_tmp"
trap 'rm -f "$log"; rm -rf "$tests_tmp" 2>/dev/null || true' EXIT
abx_say "running tests (tap)"
set +e
TMPDIR="$tests_tmp" npx tap "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# tap's summary line looks like "# { total: 12, pass: 11, fail: 1 }".
summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -n 1 || true)
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary"); pass=${pass:-0}
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary"); fail=${fail:-0}
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then
  echo "tap exited $status with no failed assertion: coverage is below the thresholds in .taprc (see the table above)" >&2
  fail=1
fi
# The end of a CI log is often all that is kept of it: name what failed there, after the
# coverage table, not only above it.
node scripts/lib/tap-failures.mjs "$log" || true
echo "${pass} passed, ${fail} failed"
exit "$status"
