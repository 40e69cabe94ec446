# Host prerequisites shared by scripts/test.sh and scripts/start.sh: Node version, apt packages
# (installed with sudo when not root, asking nothing), npm dependencies and the build.
# Each step is idempotent and quick when already done. Source this file; it defines functions.

abx_say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
abx_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Refuse a Node older than the engines field (fastify 5 needs >= 20.19).
abx_require_node() {
  command -v node >/dev/null 2>&1 || abx_die "Node.js >= 20.19 is required: install it (https://nodejs.org or your distribution) and re-run"
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
    || abx_die "Node.js >= 20.19 is required, found $(node --version)"
}

# abx_require_apt PKG... : install the Debian packages that are missing.
abx_require_apt() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || abx_die "missing packages ${missing[*]} and no apt-get: install them with your package manager"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      abx_die "missing packages: ${missing[*]}. Run as root, or: sudo apt-get update && sudo apt-get install -y ${missing[*]}"
    fi
  fi
  abx_say "installing ${missing[*]} (apt)"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || abx_die "apt-get install ${missing[*]} failed"
}

# abx_prefer_apt PKG... : like abx_require_apt, but a package that cannot be installed (no apt, no
# sudo, not in this distribution) is a warning, not an error: the box runs without it, weaker.
abx_prefer_apt() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && continue
    ( abx_require_apt "$p" ) || printf 'warning: could not install %s; continuing without it\n' "$p" >&2
  done
}

# What the container end-to-end cases need: a Docker engine the suite starts itself (dockerd,
# from docker.io unless one is installed already, e.g. docker-ce), docker-compose v1, tini for
# the image's init, the CA bundle the image carries, and the default toolchain of agents the test
# image takes from this machine (schema/box-facts.json image.contents: git, curl, grep, sed,
# findutils, Python 3).
abx_require_container_engine() {
  abx_require_apt docker-compose tini ca-certificates git curl grep sed findutils python3
  if ! command -v dockerd >/dev/null 2>&1 && [ ! -x /usr/sbin/dockerd ] && [ ! -x /usr/bin/dockerd ]; then
    abx_require_apt docker.io
  fi
}

# What the build reads: a build is skipped when none of it changed since the last one's stamp.
ABX_BUILD_INPUTS=(management-api scripts schema config package.json package-lock.json tsconfig.json)

# True when dist/.build-stamp exists and no build input is newer than it. Why skip: a build
# rewrites dist/ in place (the box bundle's directory is cleared and remade), so one run while a
# box of this checkout starts or runs (`npm start` beside the tests, or beside another box) had
# that box find its modules missing or half written.
abx_build_current() {
  [ -f dist/.build-stamp ] || return 1
  [ -z "$(find "${ABX_BUILD_INPUTS[@]}" -newer dist/.build-stamp -print -quit 2>/dev/null)" ]
}

# Install npm dependencies when node_modules is absent or older than the lock file, then build
# unless the build is current. Several runs at once (one `npm start` per box of a mesh) take turns
# on dist/.build.lock: two `npm ci` in one node_modules, or two bundles into one dist/bin, would
# break each other. The stamp is made before the build and kept only once it succeeded, so an
# input changed during a build is newer than it and built next time.
abx_require_npm_build() {
  mkdir -p dist
  local fd
  exec {fd}>dist/.build.lock
  if command -v flock >/dev/null 2>&1; then
    flock "$fd" || abx_die "could not lock dist/.build.lock"
  fi
  : > dist/.build-stamp.next
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    abx_say "installing npm dependencies (npm ci, which builds)"
    # No stamp while dist/ is being remade: a build that fails midway is not taken for current.
    rm -f dist/.build-stamp
    npm ci --no-audit --no-fund --loglevel=error || abx_die "npm ci failed"
    mv dist/.build-stamp.next dist/.build-stamp
  elif abx_build_current; then
    abx_say "the build is current (nothing it reads changed since the last one)"
    rm -f dist/.build-stamp.next
  else
    abx_say "building (tsc)"
    rm -f dist/.build-stamp
    npm run --silent build || abx_die "build failed"
    mv dist/.build-stamp.next dist/.build-stamp
  fi
  # Unlocked even if a child still holds a copy of the descriptor; closed so later commands lack it.
  if command -v flock >/dev/null 2>&1; then flock -u "$fd"; fi
  exec {fd}>&-
}

# The agent sandbox launcher (C): a compiler and libc/kernel headers from apt only when missing,
# then compiled into dist/ unless already current (scripts/build/build-launcher.mjs).
abx_require_launcher() {
  if ! command -v "${CC:-cc}" >/dev/null 2>&1 || [ ! -f /usr/include/linux/seccomp.h ] || [ ! -f /usr/include/stdio.h ]; then
    abx_require_apt gcc libc6-dev
  fi
  node scripts/build/build-launcher.mjs || abx_die "the agent sandbox launcher did not compile"
}
