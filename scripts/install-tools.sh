#!/usr/bin/env bash
# Installs the external tools the bot drives into tools/ (npm packages into tools/node_modules,
# Go tools into tools/bin) and checks the ones that come with a toolchain (cargo clippy).
# The Dockerfile runs this same script. Idempotent: re-running only fills what is missing.
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
  # REVIEWBOT_NPM_OMIT_DEV=1 (the Docker image) skips the forge descriptions only tests need.
  local omit=()
  [ "${REVIEWBOT_NPM_OMIT_DEV:-0}" = "1" ] && omit=(--omit=dev)
  (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error "${omit[@]}")
  cp "$tools/package-lock.json" "$tools/node_modules/.reviewbot-installed"
}

install_go() {
  local spec
  { grep -v '^\s*\(#\|$\)' "$tools/go-tools.txt" || true; } | while read -r spec; do
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

mkdir -p "$tools/bin"
install_npm
install_go
check_cargo
log "done"
