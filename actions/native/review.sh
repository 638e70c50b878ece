#!/usr/bin/env bash
# The no-container action's second step: the action's entry point (bot.action) from the bot's
# own virtualenv (REVIEWBOT_HOME), with the runner's tools. The repository's virtualenv (.venv
# or venv, in the working directory) comes first on PATH, then the runner's PATH; the bot's own
# folder comes last, so its interpreter shadows nothing the repository's linters need.
set -euo pipefail
home="${REVIEWBOT_HOME:-}"
if [ -z "$home" ] || [ ! -x "$home/bin/python" ]; then
  echo "reviewbot: no reviewbot installed at '$home' (the install step did not run?)" >&2
  exit 2
fi
dir="${INPUT_WORKING_DIRECTORY:-.}"
path="$PATH:$home/bin"
for venv in .venv venv; do
  if [ -x "$dir/$venv/bin/python" ]; then
    path="$(cd "$dir/$venv/bin" && pwd):$path"
    break
  fi
done
PATH="$path" exec "$home/bin/python" -I -m bot.action
