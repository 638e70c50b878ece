"""No tool may change the user's checkout: what one writes is put back and the tool fails.

The writing tool is an analyzer made for the test: the fault injected is the write itself."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bot import git
from bot.analyzer import Analyzer, Outcome, Resolution, Target
from bot.linters.ruff import SPEC as RUFF
from bot.linters.runner import LinterAnalyzer
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo


class Writer(Analyzer):
    """Writes into the checkout it analyses at the head, as gopls once did to a go.mod."""

    name = "writer"

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        return True

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        return Resolution("writer", "1.0")

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        if target.side == "head":
            root = target.root
            (root / "docs" / "go.mod").write_text("module changed\n")  # tracked
            (root / "docs" / "go.sum").write_text("new\n")  # created, untracked
            (root / "build").mkdir()
            (root / "build" / "out.o").write_text("object\n")  # created, ignored
            (root / ".ruff_cache").mkdir()
            (root / ".ruff_cache" / "x").write_text("cache\n")  # a tool cache: allowed
            (root / "notes.txt").write_text("the user's notes\n")  # existed: never removed
        return Outcome(self.name, "ok", version="1.0")


def changed(repo: GitRepo) -> GitRepo:
    repo.commit({".gitignore": "build/\n", "docs/go.mod": "module docs\n", "a.py": "x = 1\n",
                 "pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n'})
    repo.branch("feat")
    repo.commit({"a.py": "import os\n"})
    repo.write({"notes.txt": "the user's notes\n"})  # untracked; the head is still clean
    return repo


def test_a_tool_that_writes_into_the_checkout_fails_and_the_checkout_is_restored(
        repo: GitRepo, tmp_path: Path) -> None:
    changed(repo)
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"writer": Writer(), "ruff": LinterAnalyzer(RUFF)}))
    tools = {t.name: t for t in result.tools}
    assert tools["ruff"].status == "ok", "the other tools are judged on their own"
    assert tools["writer"].status == "failed"
    first, kept = tools["writer"].message.split("\n")
    assert first == "at the head: writer modified the checkout: build/, docs/go.mod, docs/go.sum; restored"
    assert kept.startswith("what it wrote is kept, for `git cat-file -p BLOB`: docs/go.mod ")
    assert "docs/go.sum " in kept
    blob = kept.split("docs/go.mod ")[1].split(",")[0]
    assert repo.git("cat-file", "-p", blob) == "module changed"
    assert (repo.path / "docs" / "go.mod").read_text() == "module docs\n"
    assert not (repo.path / "docs" / "go.sum").exists() and not (repo.path / "build").exists()
    assert (repo.path / "notes.txt").read_text() == "the user's notes\n"
    assert (repo.path / ".ruff_cache" / "x").exists()
    assert git.status_porcelain(repo.path) == ""


def test_in_a_worktree_the_checkout_is_not_watched(repo: GitRepo, tmp_path: Path) -> None:
    """The head analysed elsewhere (here: the tree is dirty) cannot touch the user's files."""
    changed(repo)
    repo.write({"a.py": "import os  # editing\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"writer": Writer()}))
    assert [t.status for t in result.tools] == ["ok"]
    assert (repo.path / "docs" / "go.mod").read_text() == "module docs\n"


class LockWriter(Writer):
    """cargo's normal run: a Cargo.lock where the repository has none."""

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        (target.root / "Cargo.lock").write_text("# generated\n")
        return Outcome(self.name, "ok", version="1.0")


def test_a_generated_lock_file_is_removed_without_failing_the_tool(repo: GitRepo,
                                                                   tmp_path: Path) -> None:
    changed(repo)
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"writer": LockWriter()}))
    assert [(t.status, t.message) for t in result.tools] == [("ok", "")]
    assert not (repo.path / "Cargo.lock").exists()


class QuietWriter(Writer):
    """Says it never writes, and writes: it runs at once with the other read-only tools."""

    @property
    def read_only(self) -> bool:
        return True


def test_a_write_among_tools_run_at_once_fails_each_of_them(repo: GitRepo, tmp_path: Path) -> None:
    """Which of the tools that ran together wrote cannot be told: none of them is trusted at
    the head, each message names them all, and the checkout is put back."""
    changed(repo)
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"writer": QuietWriter(), "ruff": LinterAnalyzer(RUFF)}))
    tools = {t.name: t for t in result.tools}
    assert [t.name for t in result.tools] == ["ruff", "writer"]
    for tool in tools.values():
        assert tool.status == "failed" and tool.failed_at == ("head",)
        assert tool.message.split("\n")[0] == (
            "at the head: one of ruff and writer (run at once) modified the checkout: build/, "
            "docs/go.mod, docs/go.sum; restored")
    assert (repo.path / "docs" / "go.mod").read_text() == "module docs\n"
    assert git.status_porcelain(repo.path) == ""
