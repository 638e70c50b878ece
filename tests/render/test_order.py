from __future__ import annotations

from bot.model import Severity
from bot.render.order import priority
from tests.forges.builders import finding, verdict


def test_worst_first_then_introduced_before_changed_then_by_position() -> None:
    info = verdict(finding("a.py", 1, severity=Severity.INFO), "fp-1")
    changed = verdict(finding("a.py", 9), "fp-2", scope="changed")
    later = verdict(finding("b.py", 2), "fp-3")
    earlier = verdict(finding("b.py", 1), "fp-4")
    other_file = verdict(finding("a.py", 5), "fp-5")
    shown = sorted([info, changed, later, earlier, other_file], key=priority)
    assert shown == [other_file, earlier, later, changed, info]
