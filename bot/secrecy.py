"""What the bot keeps to itself: which variables hold a credential, and which variables no
process it starts inherits.

One rule for three readers, so it sits below all of them: `bot.proc` builds every child's
environment without the `withheld` variables; `bot.safety.credentials` takes the same
credentials (`is_secret`) out of the bot's own environment at start-up; `bot.safety.filecommands`
watches the files that the runner's `FILE_COMMANDS` name. Pure: names and values only.
"""

from __future__ import annotations

import re

# GitHub Actions' file commands: the runner reads the files these variables name after a step
# (bot.safety.filecommands). A tool has no business writing them, so no tool is told where
# they are.
FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE",
                 "GITHUB_STEP_SUMMARY")
_FILE_COMMANDS = frozenset(FILE_COMMANDS)

# Names of variables that hold credentials: GITHUB_TOKEN, INPUT_GITHUB-TOKEN,
# ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN, CI_JOB_TOKEN, CI_JOB_JWT,
# CI_REGISTRY_PASSWORD, REVIEWBOT_GITLAB_TOKEN and any variable a user names so.
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|JWT|CREDENTIAL", re.IGNORECASE)
# A URL with a password in it (GitLab's CI_REPOSITORY_URL carries the job token so).
_URL_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    return _SECRET_NAME.search(name) is not None


def has_url_password(text: str) -> bool:
    """Whether `text` holds a URL with a password in it (`https://user:token@host/`)."""
    return _URL_PASSWORD.search(text) is not None


def is_secret(name: str, value: str) -> bool:
    """Whether the variable `name=value` holds a credential, by its name or by its value."""
    return is_secret_name(name) or has_url_password(value)


def withheld(name: str, value: str) -> bool:
    """Whether no process the bot starts may inherit the variable `name=value`: a credential
    or one of the runner's file commands."""
    return name in _FILE_COMMANDS or is_secret(name, value)
