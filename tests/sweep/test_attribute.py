"""Which commit brought a finding: blame when the line changed in the range, else the first
commit after which it appears, probed one by one or bisected."""

from __future__ import annotations

import pytest

from bot.sweep.attribute import LINEAR_UP_TO, Attribution, attribute, by_blame, first_appearance

RANGE = [f"c{n}" for n in range(1, 4)]


@pytest.mark.parametrize("blamed,changed,expected", [
    ("c2", True, "c2"),  # a line the range wrote
    ("c0", True, None),  # blamed on history before the range
    ("c2", False, None),  # the line did not change: blame says who wrote it, not who broke it
    (None, True, None),  # blame failed
])
def test_blame_is_trusted_only_inside_the_range(blamed: str | None, changed: bool,
                                                expected: str | None) -> None:
    assert by_blame(blamed, changed, RANGE) == expected


def probe(first: int, seen: list[str]):  # type: ignore[no-untyped-def]
    def present(sha: str) -> bool:
        seen.append(sha)
        return int(sha[1:]) >= first
    return present


@pytest.mark.parametrize("count", [1, 2, LINEAR_UP_TO, LINEAR_UP_TO + 1, 50, 200])
def test_the_first_appearance_is_found_with_few_probes(count: int) -> None:
    commits = [f"c{n}" for n in range(1, count + 1)]
    for first in range(1, count + 1):
        seen: list[str] = []
        found, probes = first_appearance(commits, probe(first, seen))
        assert found == f"c{first}" and probes == len(seen)
        assert f"c{count}" not in seen  # the head is known to have it
        if count > LINEAR_UP_TO:
            assert probes <= count.bit_length()


def test_no_commit_no_attribution() -> None:
    assert first_appearance([], lambda sha: True) == (None, 0)
    assert attribute(None, False, [], lambda sha: True) == Attribution(None, "unknown", 0)


def test_blame_first_then_probes() -> None:
    seen: list[str] = []
    assert attribute("c3", True, RANGE, probe(1, seen)) == Attribution("c3", "blame")
    assert seen == []
    assert attribute("c0", False, RANGE, probe(2, seen)) == Attribution("c2", "first-appearance", 2)
