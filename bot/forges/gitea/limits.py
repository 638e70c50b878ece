"""Gitea's sizes and its markdown dialect, as data. Pure.

Gitea renders no suggestion block (go-gitea/gitea#14765 and #29505, open proposals): a
suggested fix is shown as a fenced `diff` block that people apply by hand (its lines are the
replacement, shown as context). Comments sit on one line (`new_position` or `old_position`
names a single line), so `ranges` is False.
"""

from __future__ import annotations

from bot.render.dialect import Dialect

PAGE_SIZE = 50  # Gitea's default [api] MAX_RESPONSE_ITEMS: a larger `limit` is cut to it
# Comment bodies are stored as LONGTEXT and no limit is documented; the GitHub limit keeps a
# body that renders on every forge, and a page that stays readable.
BODY_LIMIT = 65_536
# A commit status's description is TEXT in Gitea's database; the status line shows one line.
DESCRIPTION_LIMIT = 255
# The first Gitea release with POST /pulls/{index}/comments/{id}/resolve and /unresolve
# (go-gitea/gitea#36441, in the 1.26.0 release notes). Forgejo has none of its own.
RESOLVE_SINCE = (1, 26)
# The accounts an Actions token writes as (Gitea's and Forgejo's `ActionsUserName`).
ACTIONS_USERS = ("gitea-actions", "forgejo-actions")


def fence(start: int, end: int, anchor: int) -> str:
    """Gitea renders no suggestion block: the fix is shown, not applied."""
    return "diff"


DIALECT = Dialect("gitea", body_limit=BODY_LIMIT, ranges=False, fence=fence,
                  elsewhere="the job log or the SARIF file")
