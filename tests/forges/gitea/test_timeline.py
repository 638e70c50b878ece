"""Who added each label, from Gitea's issue timeline entries (oldest first)."""

from __future__ import annotations

from typing import Any

from bot.forges.gitea.timeline import labeled_by


def entry(kind: str, name: str, login: str, added: bool) -> dict[str, Any]:
    return {"type": kind, "label": {"id": 1, "name": name}, "user": {"login": login},
            "body": "1" if added else ""}


def test_the_newest_addition_names_who_added_a_label() -> None:
    entries = [entry("label", "apply", "bot", True), entry("label", "apply", "bot", False),
               entry("label", "apply", "ada", True), entry("label", "bug", "rex", True),
               entry("comment", "apply", "eve", True)]
    assert labeled_by(entries) == {"apply": "ada", "bug": "rex"}


def test_a_label_removed_last_was_added_by_nobody() -> None:
    assert labeled_by([entry("label", "apply", "ada", True),
                       entry("label", "apply", "reviewbot", False)]) == {}
    assert labeled_by([{"type": "label", "body": "1"}]) == {}  # no label named: skipped
