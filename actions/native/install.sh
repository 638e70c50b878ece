#!/usr/bin/env bash
# The no-container action's install step: reviewbot in a virtualenv of its own (REVIEWBOT_HOME,
# default $RUNNER_TEMP/reviewbot); writes `home=` to $GITHUB_OUTPUT.
# REVIEWBOT_PACKAGE (a wheel, a folder, a requirement) else reviewbot==$REVIEWBOT_VERSION;
# REVIEWBOT_PYTHON makes the virtualenv (3.11 or later).
# A virtualenv already there (restored by actions/cache, keyed by key.sh) that runs and is the
# version asked for is used as it is. Else uv installs: the runner's own when it is on PATH,
# else uv from the package index, put by pip into a folder of its own beside the bot's
# (pip's PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS and PIP_NO_INDEX apply to both);
# pip alone when the runner's Python has no pip or the index has no uv.
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
done_() {
  log "$1"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "home=$home" >> "$GITHUB_OUTPUT"
  fi
  exit 0
}

start=$SECONDS
if [ -z "${REVIEWBOT_PACKAGE:-}" ] && [ -x "$home/bin/reviewbot" ]; then
  # A cached virtualenv: its interpreter must still run, and be the version asked for.
  if [ "$("$home/bin/reviewbot" --version 2>/dev/null)" = "reviewbot $REVIEWBOT_VERSION" ]; then
    done_ "reviewbot $REVIEWBOT_VERSION from the cached virtualenv ($home)"
  fi
  log "the virtualenv at $home is not reviewbot $REVIEWBOT_VERSION or does not run: made again"
fi
if [ -f "$home/pyvenv.cfg" ]; then
  rm -rf "$home"  # a virtualenv of another version or a moved interpreter: never anything else
elif [ -e "$home" ] && [ -n "$(ls -A "$home")" ]; then
  log "$home exists and is not a virtualenv: set REVIEWBOT_HOME to a new folder"
  exit 2
fi

uv="$(command -v uv || true)"
if [ -z "$uv" ] && "$python" -m pip --version >/dev/null 2>&1; then
  own="$home-uv"
  # --target: into a folder of its own, never the runner's Python (which may be externally
  # managed); uv is one binary, it needs no import path.
  if [ -x "$own/bin/uv" ] || { "$python" -m pip install --quiet --disable-pip-version-check \
      --no-warn-script-location --upgrade --target "$own" uv >/dev/null 2>&1 \
      && [ -x "$own/bin/uv" ]; }; then
    uv="$own/bin/uv"
  else
    log "uv could not be installed from the package index: pip installs the bot instead (slower)"
  fi
fi

if [ -n "$uv" ]; then
  # uv reads its own variables: the index the job gave pip is the one it uses.
  export UV_INDEX_URL="${UV_INDEX_URL:-${PIP_INDEX_URL:-}}"
  export UV_EXTRA_INDEX_URL="${UV_EXTRA_INDEX_URL:-${PIP_EXTRA_INDEX_URL:-}}"
  export UV_FIND_LINKS="${UV_FIND_LINKS:-${PIP_FIND_LINKS:-}}"
  for name in UV_INDEX_URL UV_EXTRA_INDEX_URL UV_FIND_LINKS; do
    [ -n "${!name}" ] || unset "$name"
  done
  no_index=()
  case "${PIP_NO_INDEX:-}" in 1|true|yes|on) no_index=(--no-index) ;; esac
  "$uv" venv --quiet --python "$python" "$home"
  "$uv" pip install --quiet "${no_index[@]}" --python "$home/bin/python" "$package"
  # uv compiles no bytecode (pip does): the bot's own modules are compiled once here, kept by
  # the cache, instead of at every review's start (0.5 s of it); its dependencies' would
  # cost more to compile than the review spends importing them.
  "$home/bin/python" -I -c 'import compileall, os, bot
compileall.compile_dir(os.path.dirname(bot.__file__), quiet=1, workers=0)' >/dev/null
  how="uv"
else
  "$python" -m venv "$home"
  "$home/bin/python" -m pip install --quiet --disable-pip-version-check "$package"
  how="pip"
fi
done_ "$("$home/bin/reviewbot" --version) installed in $((SECONDS - start)) s by $how ($home)"
