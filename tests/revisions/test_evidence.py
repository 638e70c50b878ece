"""The change's evidence: its pairing from the diff (one place for both shapes of a file's
change), what a shard's part carries of it, and the parts joined again."""

from __future__ import annotations

import pytest

from bot.revisions import workspace
from bot.revisions.diff import identity_map
from bot.revisions.evidence import DisagreeError, Evidence, FileSide, pairing
from tests.conftest import GitRepo

BODY = "".join(f"line_{i} = {i}\n" for i in range(12))


@pytest.fixture
def changes(repo: GitRepo) -> workspace.Changes:
    """A change that adds, deletes, renames and edits a file (real git)."""
    repo.commit({"kept.py": BODY, "gone.py": "x = 1\n", "old.py": BODY + "tail = 1\n"}, "base")
    repo.branch("feature")
    repo.mv("old.py", "new.py")
    repo.commit({"kept.py": BODY + "z = 3\n", "gone.py": None, "added.py": "y = 2\n"})
    return workspace.read_changes(workspace.resolve(repo.path, "main", "HEAD"))


def test_the_pairing_of_the_diff_and_of_the_result_are_the_same(changes: workspace.Changes) -> None:
    evidence = changes.evidence
    assert evidence.deleted == {"gone.py"}
    assert evidence.pairs["kept.py"] == "kept.py" and evidence.pairs["added.py"] is None
    assert evidence.pairs["new.py"] == "old.py"
    assert "gone.py" not in evidence.pairs
    # The result's file changes (what a part's publisher has) pair the files the same way.
    assert pairing(changes.file_changes()) == (dict(evidence.pairs), evidence.deleted)
    assert evidence.reverse()["old.py"] == "new.py"
    assert evidence.base_path("added.py") is None and evidence.base_path("other.py") == "other.py"


def test_a_part_carries_the_files_of_its_findings_only(changes: workspace.Changes) -> None:
    carried = changes.evidence.carrying(heads=["new.py"], bases=["gone.py"])
    assert set(carried.head_files) == {"new.py"} and set(carried.maps) == {"new.py"}
    assert set(carried.base_files) == {"old.py", "gone.py"}
    # A base finding of a renamed file brings its head side too.
    carried = changes.evidence.carrying(heads=[], bases=["old.py"])
    assert set(carried.head_files) == {"new.py"} and set(carried.base_files) == {"old.py"}


def test_parts_joined_are_the_whole_and_a_disagreement_names_both_parts(
        changes: workspace.Changes) -> None:
    whole = changes.evidence
    one = whole.carrying(heads=["kept.py"], bases=[])
    two = whole.carrying(heads=["new.py", "kept.py"], bases=["gone.py"])
    joined = Evidence.joined([one, two], changes.file_changes())
    assert joined.pairs == whole.pairs and joined.deleted == whole.deleted
    assert set(joined.head_files) == {"kept.py", "new.py"}
    assert joined.maps["kept.py"] == whole.maps["kept.py"]
    forged = Evidence(maps=one.maps, base_files=one.base_files,
                      head_files={"kept.py": FileSide(("other\n",))})
    with pytest.raises(DisagreeError) as raised:
        Evidence.joined([one, two, forged], changes.file_changes())
    assert (raised.value.kind, raised.value.path, raised.value.index, raised.value.first) == (
        "files.head", "kept.py", 2, 0)


def test_files_beyond_the_change_are_paired_line_for_line() -> None:
    side = FileSide(("a\n", "b\n"))
    evidence = Evidence(maps={"c.py": identity_map(1)}, head_files={"c.py": FileSide(("c\n",))})
    grown = evidence.with_unchanged({"user.py": side}, {"user.py": side})
    assert grown.maps["user.py"] == identity_map(2) and grown.maps["c.py"] is evidence.maps["c.py"]
    assert grown.side("base", "user.py") is side and grown.side("head", "nothing.py").lines == ()
    assert evidence.with_unchanged({}, {}) is evidence
    # A file no map names is the same file at both sides.
    assert Evidence(head_files={"d.py": side}).line_map("d.py") == identity_map(2)


def test_sizes_are_each_files_characters_the_heads_for_a_path_at_both() -> None:
    evidence = Evidence(base_files={"a.py": FileSide(("abc\n",)), "old.py": FileSide(("x\n",))},
                        head_files={"a.py": FileSide(("ab\n", "c\n"))})
    assert evidence.sizes() == {"a.py": 5, "old.py": 2}
