"""Drafts carry what a GitLab position needs (old path, the base line of an unchanged line),
from a real git diff's line maps."""

from __future__ import annotations

from bot.forges.gitlab import change as gitlab
from bot.model import FileChange
from bot.publishing.policy import place
from bot.publishing.sync import draft
from bot.revisions import workspace
from tests.conftest import GitRepo
from tests.forges.builders import finding, result, texts, verdict

BASE = "".join(f"line{n} = {n}\n" for n in range(1, 21))
# Two lines on top, line10 modified, line15 re-indented: every later line moves down by 2.
HEAD = "# a\n# b\n" + BASE.replace("line10 = 10", "line10 = 100").replace("line15 = 15", " line15 = 15")


def changes(repo: GitRepo) -> dict[str, FileChange]:
    rev = workspace.resolve(repo.path, "main", "HEAD")
    return {c.path: c for c in workspace.read_changes(rev).file_changes()}


def test_unchanged_context_lines_know_their_base_line(repo: GitRepo) -> None:
    repo.commit({"a.py": BASE, "old.py": BASE}, "base")
    repo.branch("feature")
    repo.mv("old.py", "new.py")
    head = repo.commit({"a.py": HEAD, "new.py": BASE.replace("line3 = 3", "line3 = 33"),
                        "added.py": "x = 1\n"}, "head")
    found = changes(repo)
    a = found["a.py"]
    # context of the insertion (head 3-5) and of the modification (head 9-11, 13-15)
    assert {h: a.base_lines[h] for h in (3, 5, 9, 11)} == {3: 1, 5: 3, 9: 7, 11: 9}
    assert 12 not in a.base_lines and 1 not in a.base_lines  # modified, added
    assert 17 not in a.base_lines  # whitespace changed: a changed line for the forge's diff
    assert found["new.py"].old_path == "old.py" and found["new.py"].base_lines[4] == 4
    assert found["added.py"].base_lines == {}

    verdicts = [verdict(finding("a.py", line), f"fp{line}") for line in (1, 9, 12)]
    verdicts += [verdict(finding("new.py", 4), "renamed"), verdict(finding("added.py", 1), "new")]
    res = result(head, verdicts, found.values())
    items = place(res, texts(repo.path, head, ["a.py", "new.py", "added.py"]), dialect=gitlab.DIALECT)
    drafts = {d.key: (d.path, d.line, d.old_path, d.old_line) for d in map(draft, items)}
    assert drafts == {"fp1": ("a.py", 1, "a.py", None), "fp9": ("a.py", 9, "a.py", 7),
                      "fp12": ("a.py", 12, "a.py", None), "renamed": ("new.py", 4, "old.py", 4),
                      "new": ("added.py", 1, None, None)}
