"""Who added the labels a Gitea (or Forgejo) pull request carries, from its issue timeline
(`GET /repos/{owner}/{repo}/issues/{index}/timeline`).

Gitea's label event (`label_updated`) names no label: it carries the labels after the change,
and is sent for a label removed too. The timeline has one `label` entry per label added (body
"1") or removed (body empty), with who did it. Pure reading of those entries, and the one read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bot.forges.gitea.api import Api


def labeled_by(entries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """For each label whose newest entry (oldest first in `entries`) is an addition, who
    added it."""
    newest: dict[str, tuple[bool, str]] = {}
    for entry in entries:
        label, user = entry.get("label"), entry.get("user")
        if entry.get("type") != "label" or not isinstance(label, Mapping):
            continue
        login = user.get("login") if isinstance(user, Mapping) else None
        newest[str(label.get("name"))] = (entry.get("body") == "1", str(login or ""))
    return {name: login for name, (added, login) in newest.items() if added and login}


def read(api: Api, number: int) -> dict[str, str]:
    """`labeled_by` of pull request `number`'s timeline."""
    entries = api.list(f"{api.repo}/issues/{number}/timeline")
    return labeled_by(sorted(entries, key=lambda e: int(e.get("id") or 0)))
