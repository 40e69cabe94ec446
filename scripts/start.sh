#!/usr/bin/env bash
# `npm start`: sets up what Agentbox needs on this machine (Debian packages with sudo when not root,
# npm dependencies, the build), then runs the box on the embedded local default in the foreground:
# `agentbox up --local` (pass -- --manifest FILE for another manifest). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/prereqs.sh

abx_require_node
# nix-bin renders the configs (offline evaluation); supervisor runs the box's programmes.
abx_require_apt nix-bin supervisor
# bubblewrap gives each agent namespaces of its own, the strongest confinement the host allows
# (docs/user/sandbox.md); without it agents run under the launcher alone.
abx_prefer_apt bubblewrap
abx_require_npm_build
abx_require_launcher
exec node dist/scripts/cli/agentbox.js up --local "$@"
