"""The base for tools that read one file at a time: the changed files' folders, written from
git, the rest shared with the head; the same layout, the same verdicts, nothing left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot import git
from bot.linters.ruff import SPEC as RUFF
from bot.linters.runner import LinterAnalyzer
from bot.revisions import partial, workspace
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo


def _files(root: Path) -> dict[str, bytes]:
    """Every file under `root` as a tool sees it (symbolic links followed), but git's own."""
    out = {}
    for folder, dirs, names in os.walk(root, followlinks=True):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def _layered(repo: GitRepo) -> workspace.Revisions:
    repo.commit({"pyproject.toml": "[tool.ruff]\n", "top.py": "x = 1\n",
                 "src/pkg/__init__.py": "", "src/pkg/a.py": "a = 1\n", "src/pkg/b.py": "b = 1\n",
                 "src/pkg/deep/c.py": "c = 1\n", "src/other/__init__.py": "",
                 "src/other/d.py": "d = 1\n", "docs/x.md": "# x\n", "gone.py": "g = 1\n"})
    repo.branch("feat")
    repo.commit({"src/pkg/a.py": "a = 2\n", "src/pkg/new.py": "n = 1\n", "gone.py": None,
                 "pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n"})
    return workspace.resolve(repo.path, "main", "HEAD")


def test_the_files_base_is_the_base_tree_with_the_heads_configuration(repo: GitRepo) -> None:
    rev = _layered(repo)
    changed = ["gone.py", "pyproject.toml", "src/pkg/a.py", "src/pkg/new.py"]
    with workspace.checkouts(rev, ["pyproject.toml"], changed) as trees:
        root = trees.files_base()
        assert root == trees.files_root and trees.files_how == "partial"
        expected = {p: git.show(repo.path, rev.merge_base, p)
                    for p in [*git.ls_files(repo.path), "gone.py"]}
        expected = {p: b for p, b in expected.items() if b is not None}
        expected["pyproject.toml"] = (repo.path / "pyproject.toml").read_bytes()  # the head's
        assert _files(root) == expected
        # The cost of the change: the untouched folders are the head's, not written.
        assert (root / "docs").is_symlink() and (root / "src/other").is_symlink()
        assert (root / "src/pkg/deep").is_symlink() and not (root / "src/pkg").is_symlink()
        assert os.stat(root / "src/pkg/b.py").st_ino == os.stat(repo.path / "src/pkg/b.py").st_ino
        assert (root / "src/pkg/a.py").read_text() == "a = 1\n"
        scratch = trees.scratch
    assert not scratch.exists()
    assert repo.git("status", "--porcelain") == "" and (repo.path / "src/pkg/b.py").stat().st_nlink == 1
    assert (repo.path / "docs/x.md").read_text() == "# x\n"


def test_a_folder_the_head_does_not_have_makes_a_whole_checkout(repo: GitRepo) -> None:
    """A sparse checkout of the head lacks the untouched folders the base would share."""
    rev = _layered(repo)
    repo.git("sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
    assert not (repo.path / "docs").exists()
    with workspace.checkouts(rev, ["pyproject.toml"], ["src/pkg/a.py"]) as trees:
        root = trees.files_base()
        assert trees.files_how == "checkout"
        # A worktree, sparse as the repository is (as before this tree existed).
        assert (root / "src/pkg/a.py").read_text() == "a = 1\n" and not (root / "docs").exists()
    assert repo.git("worktree", "list").count("\n") == 0, "the whole checkout is removed"


def test_a_file_of_the_base_where_the_head_has_a_folder() -> None:
    entries = [git.TreeEntry("100644", "blob", "1" * 40, "x"),
               git.TreeEntry("100644", "blob", "2" * 40, "y.py"),
               git.TreeEntry("040000", "tree", "3" * 40, "z"),
               git.TreeEntry("160000", "commit", "4" * 40, "vendor")]
    todo = partial.plan(entries, ["x", "x/a.py"], ["ruff.toml"])
    assert todo.folders == ["."], "x is a file at the base: no folder is made for it"
    assert todo.writes == [("x", f"100644 {'1' * 40}")]
    assert [p for p, _ in todo.links] == ["y.py"] and todo.shared == ["z"] and todo.empty == ["vendor"]


@pytest.mark.parametrize("crlf", [False, True])
def test_the_written_files_are_checked_out_as_git_would(repo: GitRepo, crlf: bool) -> None:
    repo.commit({".gitattributes": "*.py text eol=crlf\n" if crlf else "*.md text\n",
                 "a.py": "x = 1\ny = 2\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 1\n"})
    rev = workspace.resolve(repo.path, "main", "HEAD")
    with workspace.checkouts(rev, [], ["a.py"]) as trees:
        written = (trees.files_base() / "a.py").read_bytes()
    assert written == (b"x = 1\r\ny = 2\r\n" if crlf else b"x = 1\ny = 2\n")


def test_verdicts_that_depend_on_the_neighbours_stay_the_same(repo: GitRepo, tmp_path: Path) -> None:
    """ruff's isort takes `other` for first-party only where src/other exists, and INP001
    looks for the folder's __init__.py: a base of the changed file alone would report I001 as
    introduced and INP001 as fixed."""
    repo.commit({"pyproject.toml": '[tool.ruff]\nsrc = ["src"]\n[tool.ruff.lint]\n'
                                   'select = ["I001", "INP001", "F401"]\n',
                 "src/mypkg/__init__.py": "", "src/other/__init__.py": "",
                 "src/mypkg/a.py": "import other\nimport yaml\n\nprint(other, yaml)\n"})
    repo.branch("feat")
    repo.commit({"src/mypkg/a.py": "import other\nimport yaml\n\nprint(other, yaml)\nimport os\n"})
    made: list[str] = []
    real = partial.materialize

    def counting(repo_: Path, head: Path, where: Path, todo: partial.Plan, index: Path) -> None:
        made.append(where.name)
        real(repo_, head, where, todo, index)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(partial, "materialize", counting)
        result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                          analyzers={"ruff": LinterAnalyzer(RUFF)}))
    assert made == ["files"]
    assert [t.status for t in result.tools] == ["ok"], result.tools
    verdicts = sorted((v.finding.rule, v.finding.line, v.scope) for v in result.findings)
    assert ("I001", 1, "preexisting") in verdicts
    assert ("F401", 5, "introduced") in verdicts
    assert not [v for v in verdicts if v[0] == "INP001"] and result.fixed == ()
