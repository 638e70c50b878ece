"""A pull request as the apply flow meets it: a bare `origin` with `main` and the PR branch
`feat`, a clone of it (the CI checkout, on `main`, with local changes of its own) holding the
PR head, and the real review of that head (ruff and the repository's rules)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.model import ReviewResult
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo

SETTINGS = """\
rules:
  - id: no-print
    language: python
    severity: warning
    message: "print($A) in library code: use the logger"
    rule:
      pattern: print($A)
      inside: {kind: function_definition, stopBy: end}
    fix: log.info($A)
"""
BASE = {
    "pyproject.toml": '[tool.ruff.lint]\nselect = ["F401", "E711"]\n',
    ".reviewbot.yml": SETTINGS,
    "app.py": "import logging\n\nlog = logging.getLogger()\n\n\ndef old():\n    print('kept')\n",
    ".github/workflows/ci.yml": "on: push\njobs: {}\n",
}
# The PR: an unused import and a print in new code (app.py), a new module with an unused
# import and a str() call to rewrite (util.py), an `== None` whose ruff fix is unsafe.
FEAT = {
    "app.py": ("import logging\nimport os\n\nlog = logging.getLogger()\n\n\ndef old():\n"
               "    print('kept')\n\n\ndef new(x):\n    print(x)\n    if x == None:\n"
               "        return 0\n    return 1\n"),
    "util.py": "import sys\n\n\ndef helper(v):\n    return str(v)\n",
}


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


@dataclass(frozen=True)
class Scenario:
    origin: Path  # the bare repository the engine pushes to
    checkout: Path  # the CI checkout: on main, dirty, holding the PR head
    dev: Path  # a developer's clone (pushes of their own)
    result: ReviewResult

    @property
    def head(self) -> str:
        return self.result.head

    def remote_head(self, branch: str = "feat") -> str:
        return git(self.origin, "rev-parse", f"refs/heads/{branch}")

    def copy(self, where: Path) -> Scenario:
        """The same repositories in `where` (the review is of the same commits)."""
        shutil.copytree(self.origin.parent, where, symlinks=True, ignore=shutil.ignore_patterns("cache"))
        moved = Scenario(where / "origin.git", where / "checkout", where / "dev", self.result)
        for clone in (moved.checkout, moved.dev):
            git(clone, "remote", "set-url", "origin", str(moved.origin))
        return moved


def build(root: Path, feat: Mapping[str, str | None], base: Mapping[str, str] = BASE) -> Scenario:
    dev = GitRepo(root / "dev")
    dev.commit(dict(base), "base")
    dev.branch("feat")
    dev.commit(dict(feat), "the change")
    git(root, "init", "-q", "--bare", "-b", "main", "origin.git")
    git(dev.path, "remote", "add", "origin", str(root / "origin.git"))
    git(dev.path, "push", "-q", "origin", "main", "feat")
    git(root, "clone", "-q", "--branch", "main", str(root / "origin.git"), "checkout")
    checkout = root / "checkout"
    for key, value in (("user.email", "ci@example.invalid"), ("user.name", "CI")):
        git(checkout, "config", key, value)
    # The checkout has work of its own: a staged edit, an unstaged one, an untracked file.
    (checkout / "app.py").write_text("# staged\n" + BASE["app.py"])
    git(checkout, "add", "app.py")
    (checkout / "app.py").write_text("# unstaged\n" + BASE["app.py"])
    (checkout / "notes.txt").write_text("mine\n")
    head = git(checkout, "rev-parse", "origin/feat")
    result = run_review(ReviewOptions(repo=checkout, base="origin/main", head=head,
                                      only=("ruff", "ast-grep"), cache_dir=root / "cache"))
    assert {t.name: t.status for t in result.tools} == {"ruff": "ok", "ast-grep": "ok"}
    return Scenario(root / "origin.git", checkout, dev.path, result)


@pytest.fixture(scope="session")
def pr_template(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return build(tmp_path_factory.mktemp("pr") / "pr", FEAT)


@pytest.fixture
def pr(pr_template: Scenario, tmp_path: Path) -> Scenario:
    """A private copy of the PR scenario: tests push to it."""
    return pr_template.copy(tmp_path / "pr")


@pytest.fixture
def make_pr(tmp_path: Path) -> Callable[[Mapping[str, str | None]], Scenario]:
    """A scenario of its own for a PR that changes `feat`."""
    def make(feat: Mapping[str, str | None]) -> Scenario:
        return build(tmp_path / "own", feat)
    return make
