#!/usr/bin/env bash
# `npm start`: sets up what Agentbox needs on this machine and runs the box on the embedded local
# default (or on the manifest FILE given as the first argument). Until the runtime lands this
# validates the manifest and prints its normalized form.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/prereqs.sh

abx_require_node
abx_require_npm_build
manifest=${1:-agentbox.toml}
node dist/scripts/agentbox.js config validate "$manifest"
exec node dist/scripts/agentbox.js config show "$manifest"
