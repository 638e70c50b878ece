#!/usr/bin/env bash
# The no-container action's first step: installs reviewbot into a virtualenv of its own
# (REVIEWBOT_HOME, default $RUNNER_TEMP/reviewbot) and writes `home=` to $GITHUB_OUTPUT.
# REVIEWBOT_PACKAGE (a wheel, a folder, a requirement) else reviewbot==$REVIEWBOT_VERSION;
# REVIEWBOT_PYTHON makes the virtualenv (3.11 or later). uv installs when it is on PATH, else pip.
# Exit status 2: an interpreter or version that cannot work; pip's or uv's own on a failed install.
set -euo pipefail
log() { printf 'reviewbot: %s\n' "$*" >&2; }

python="${REVIEWBOT_PYTHON:-python3}"
home="${REVIEWBOT_HOME:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/reviewbot}"
package="${REVIEWBOT_PACKAGE:-}"
if [ -z "$package" ]; then
  if [ -z "${REVIEWBOT_VERSION:-}" ]; then
    log "neither the version nor the package input is set: nothing to install"
    exit 2
  fi
  package="reviewbot==$REVIEWBOT_VERSION"
fi
if ! command -v "$python" >/dev/null; then
  log "'$python' is not on PATH: set the python input, or add actions/setup-python before this step"
  exit 2
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  log "$("$python" --version 2>&1) is older than 3.11: set the python input, or add actions/setup-python"
  exit 2
fi

start=$SECONDS
if command -v uv >/dev/null; then
  uv venv --quiet --python "$python" "$home"
  uv pip install --quiet --python "$home/bin/python" "$package"
else
  "$python" -m venv "$home"
  "$home/bin/python" -m pip install --quiet --disable-pip-version-check "$package"
fi
log "$("$home/bin/reviewbot" --version) installed in $((SECONDS - start)) s ($home)"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "home=$home" >> "$GITHUB_OUTPUT"
fi
