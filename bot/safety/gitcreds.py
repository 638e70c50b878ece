"""Credentials in the git configuration a checkout's tools can read: refused before any runs.

A linter run on a pull request reads the checkout's `.git/config` and the user's git
configuration as easily as the bot does. actions/checkout leaves the job's token there as an
`http.<server>.extraheader` unless told `persist-credentials: false`; GitLab Runner clones with
the job token in the remote's URL unless the feature flag FF_GIT_URLS_WITHOUT_TOKENS is on. The
bot holds its own token out of the tools' reach (bot.safety.lockdown), so a token left there would undo
that: the run stops before any tool starts, naming the setting and how to remove it.

Only in CI (GITHUB_ACTIONS or GITLAB_CI): on a developer's machine the change reviewed is their
own, run by hand as often, and their git configuration is theirs.

One exception: in a GitLab merge request pipeline the job runs the merge request's own
`.gitlab-ci.yml`, so the job token in the remote's URL is already the merge request's to use;
refusing would protect nothing, and the bot's own fetches need it there. It is named in a
warning. A trigger pipeline (commands, the apply label) runs the default branch's definition:
there it is refused like any other.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bot import git
from bot.errors import BotError, Exit
from bot.secrecy import has_url_password

# Scopes a tool can read: the files of the checkout, of the user and of the system. The
# `command` scope is the environment of one git process (a push's token), never a tool's.
_READABLE = ("local", "worktree", "global", "system")
_HEADER = ".extraheader"


def _in_ci() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true" or os.environ.get("GITLAB_CI") == "true"


def _merge_request_pipeline() -> bool:
    return (os.environ.get("GITLAB_CI") == "true"
            and os.environ.get("CI_PIPELINE_SOURCE") == "merge_request_event")


def found(repo: Path) -> list[str]:
    """`scope key` of each configuration entry of `repo` that holds a credential."""
    listing = git.config_listing(repo)
    held = []
    fields = listing.split("\0")  # scope NUL key LF value NUL, for each entry
    for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        if scope not in _READABLE:
            continue
        header = key.lower().endswith(_HEADER) and bool(value.strip())
        if header or has_url_password(key) or has_url_password(value):
            held.append(f"{scope} {_redacted(key)}")
    return held


def _redacted(key: str) -> str:
    """The key without a password it may carry (`url.https://u:p@host/.insteadof`)."""
    scheme, sep, rest = key.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return key
    return f"{scheme}://***@{rest.split('@', 1)[1]}"


def refuse_held(repo: Path) -> None:
    """Stop, with Exit.SECURITY, when `repo`'s git configuration holds a credential (in CI)."""
    if not _in_ci():
        return
    held = found(repo)
    if _merge_request_pipeline():
        own = [h for h in held if h.startswith("local remote.") and h.endswith(".url")]
        for entry in own:
            print(f"reviewbot: warning: the git configuration holds the job token ({entry}); "
                  "this merge request pipeline runs the merge request's own definition, which "
                  "has it anyway (docs/security.md)", file=sys.stderr)
        held = [h for h in held if h not in own]
    if held:
        raise BotError(
            f"security: the git configuration of {repo} holds a credential ({'; '.join(held)}), "
            "which the repository's linters, run next, could read. Check out without it: "
            "actions/checkout with `persist-credentials: false`; on GitLab, the job variable "
            "FF_GIT_URLS_WITHOUT_TOKENS: \"true\" (docs/security.md)", Exit.SECURITY)
