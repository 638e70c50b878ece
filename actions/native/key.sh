#!/usr/bin/env bash
# The no-container action's first step: the key under which actions/cache keeps the bot's
# virtualenv, written as `key=` and `path=` to $GITHUB_OUTPUT. A virtualenv holds its
# interpreter's path and version, and the bot's version: the key names all three (and the
# runner's system and machine). Empty when the package input replaces the released version
# (a wheel or a folder is not named by a version: it is installed every time).
set -euo pipefail
python="${REVIEWBOT_PYTHON:-python3}"
home="${REVIEWBOT_HOME:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/reviewbot}"
key=""
if [ -z "${REVIEWBOT_PACKAGE:-}" ] && [ -n "${REVIEWBOT_VERSION:-}" ] \
    && interpreter="$("$python" -c 'import platform, sys
print(platform.system(), platform.machine(), platform.python_version(), sys.executable)' \
      2>/dev/null)"; then
  read -r system machine version executable <<< "$interpreter"
  digest="$(printf '%s' "$executable" | sha256sum | cut -c1-12)"
  key="reviewbot-venv-$REVIEWBOT_VERSION-$system-$machine-py$version-$digest"
fi
# A Python that does not run gives no key: the install step says what is wrong with it.
echo "key=$key" >> "${GITHUB_OUTPUT:-/dev/stdout}"
echo "path=$home" >> "${GITHUB_OUTPUT:-/dev/stdout}"
