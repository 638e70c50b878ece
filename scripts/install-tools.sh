#!/usr/bin/env bash
# Installs the external tools the bot drives into tools/ (npm packages into tools/node_modules,
# Go tools into tools/bin) and checks the ones that come with a toolchain (cargo clippy).
# The Dockerfile runs this same script, one part per build stage. Idempotent: re-running only
# fills what is missing.
# Usage: scripts/install-tools.sh [npm] [go] [cargo]   (no argument: all three)
# REVIEWBOT_OMIT_DEV=1 (the images) skips what only the tests use: npm's devDependencies and
# the lines of tools/go-tools.txt that end with `# dev`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$here/tools"

log() { printf 'install-tools: %s\n' "$*" >&2; }

install_npm() {
  if ! command -v npm >/dev/null; then
    log "npm not found: eslint, biome and typescript-language-server will be reported missing"
    return 0
  fi
  if cmp -s "$tools/package-lock.json" "$tools/node_modules/.reviewbot-installed" 2>/dev/null; then
    return 0
  fi
  log "npm packages -> tools/node_modules"
  local omit=()
  [ "$omit_dev" = 1 ] && omit=(--omit=dev)
  (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error "${omit[@]}")
  cp "$tools/package-lock.json" "$tools/node_modules/.reviewbot-installed"
}

install_go() {
  local spec line
  { grep -v '^\s*\(#\|$\)' "$tools/go-tools.txt" || true; } | while read -r line; do
    spec="${line%%#*}"; spec="${spec%"${spec##*[![:space:]]}"}"
    if [ "$omit_dev" = 1 ] && [[ "$line" =~ \#[[:space:]]*dev[[:space:]]*$ ]]; then
      continue
    fi
    if ! command -v go >/dev/null; then
      log "go not found: skipping $spec"
      continue
    fi
    local name="${spec%@*}"; name="${name%/v[0-9]*}"; name="${name##*/}"
    local stamp="$tools/bin/.$name.version"
    if [ -x "$tools/bin/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$spec" ]; then
      continue
    fi
    log "go install $spec -> tools/bin"
    GOBIN="$tools/bin" GOFLAGS=-mod=mod go install "$spec"
    echo "$spec" > "$stamp"
  done
}

check_cargo() {
  if command -v cargo >/dev/null && ! cargo clippy --version >/dev/null 2>&1; then
    log "cargo found but clippy is not: run 'rustup component add clippy'"
  fi
  # rust-analyzer comes as a rustup component; without it the Rust language server is not offered.
  if command -v rustup >/dev/null && ! rust-analyzer --version >/dev/null 2>&1; then
    log "rustup component add rust-analyzer"
    rustup component add rust-analyzer >/dev/null 2>&1 || log "rust-analyzer could not be installed: it will not be offered"
  fi
}

# REVIEWBOT_NPM_OMIT_DEV is the older name of REVIEWBOT_OMIT_DEV.
omit_dev="${REVIEWBOT_OMIT_DEV:-${REVIEWBOT_NPM_OMIT_DEV:-0}}"
parts=("$@")
[ "${#parts[@]}" -gt 0 ] || parts=(npm go cargo)
for part in "${parts[@]}"; do
  case "$part" in
    npm|go|cargo) ;;
    *) log "unknown part '$part' (use npm, go or cargo)"; exit 2 ;;
  esac
done
mkdir -p "$tools/bin"
for part in "${parts[@]}"; do
  case "$part" in
    npm) install_npm ;;
    go) install_go ;;
    cargo) check_cargo ;;
  esac
done
log "done"
