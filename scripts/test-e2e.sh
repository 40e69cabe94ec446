#!/usr/bin/env bash
# `npm run test:e2e`: the end-to-end suite alone (tests/e2e: `npm start` as a new user, and the
# generated compose file under a private Docker engine), with what it needs installed first.
# AGENTBOX_E2E=skip skips the container cases (and says so); nothing else does.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/prereqs.sh

abx_require_node
# bubblewrap: the image carries bwrap (schema/box-facts.json image.contents), taken from this machine.
abx_require_apt nix-bin supervisor bubblewrap
abx_require_container_engine
abx_require_npm_build
abx_require_launcher
exec npx tap --disable-coverage tests/e2e/*.test.ts "$@"
