"""The revisions' checkouts: the base checkout is made only when a tool misses the cache."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bot import git
from bot.linters import golangci
from bot.linters.base import LinterSpec
from bot.linters.ruff import SPEC as RUFF
from bot.linters.runner import LinterAnalyzer
from bot.revisions import partial, workspace
from bot.revisions.diff import FilePatch
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, calls_of, require_tool


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The base trees made: "base" a worktree, "files" the changed files' folders alone."""
    made: list[str] = []
    real = git.worktree_add
    real_partial = partial.materialize

    def counting(repo: Path, where: Path, rev: str, checkout: bool = True) -> None:
        made.append(where.name)
        real(repo, where, rev, checkout)

    def counting_partial(repo: Path, head_root: Path, where: Path, todo: partial.Plan,
                         index: Path) -> None:
        made.append(where.name)
        real_partial(repo, head_root, where, todo, index)

    monkeypatch.setattr(git, "worktree_add", counting)
    monkeypatch.setattr(partial, "materialize", counting_partial)
    return made


def review(repo: GitRepo, cache: Path, spec: LinterSpec = RUFF) -> list[tuple[str, str, int, str]]:
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=cache,
                                      analyzers={spec.name: LinterAnalyzer(spec)}))
    assert [t.status for t in result.tools] == ["ok"], result.tools
    return sorted((v.finding.rule, v.finding.path, v.finding.line, v.scope) for v in result.findings)


def test_a_warm_run_never_makes_the_base_checkout(repo: GitRepo, tmp_path: Path,
                                                  counted: list[str]) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                 "a.py": "import os\n", "pkg/b.py": "import sys\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport json\n", "pkg/b.py": "import sys\nimport re\n"})
    cold = review(repo, tmp_path / "c")
    assert counted == ["files"], "a file-scoped tool: the changed files' folders, no worktree"
    assert review(repo, tmp_path / "c") == cold
    assert counted == ["files"], "every base entry hit: no checkout"
    # A new push: the head changed, the base did not; still no base checkout.
    repo.commit({"a.py": "import os\nimport json\nimport abc\n"})
    assert ("F401", "a.py", 3, "introduced") in review(repo, tmp_path / "c")
    assert counted == ["files"]
    # The head changes the configuration the base borrows: the base is linted again.
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401", "E401"]\n'})
    review(repo, tmp_path / "c")
    assert counted == ["files", "files"]


def test_a_package_scoped_tool_keys_the_base_from_git_too(repo: GitRepo, tmp_path: Path,
                                                          counted: list[str]) -> None:
    """golangci-lint's unit is a whole Go module: listed and hashed from git at the base."""
    require_tool("golangci-lint")
    repo.commit({"go.mod": "module example.com/m\n\ngo 1.22\n",
                 ".golangci.yml": 'version: "2"\nlinters:\n  default: none\n  enable: [misspell]\n',
                 "a/a.go": "package a\n\n// recieve\nfunc A() {}\n", "b/b.go": "package b\n"})
    repo.branch("feat")
    repo.commit({"a/a.go": "package a\n\n// recieve\nfunc A() {}\n\n// seperate\nfunc B() {}\n"})
    cold = review(repo, tmp_path / "c", golangci.SPEC)
    assert ("misspell", "a/a.go", 6, "introduced") in cold and counted == ["base"]
    assert review(repo, tmp_path / "c", golangci.SPEC) == cold and counted == ["base"]
    # Another file of the module changed at the base's side of the key: linted again.
    repo.checkout("main")
    repo.commit({"b/b.go": "package b\n\n// untill\n"})
    repo.checkout("feat")
    repo.git("merge", "-q", "--no-edit", "main")
    review(repo, tmp_path / "c", golangci.SPEC)
    assert counted == ["base", "base"]


def test_checkouts_leave_nothing_behind(repo: GitRepo) -> None:
    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    rev = workspace.resolve(repo.path, "main", "HEAD")
    with workspace.checkouts(rev, ["pyproject.toml"]) as trees:
        assert not trees.base_root.exists()
        assert (trees.base() / "a.py").read_text() == "x = 1\n" and trees.base() == trees.base_root
        scratch = trees.scratch
    assert not scratch.exists()
    assert "base" not in repo.git("worktree", "list")


def test_a_tool_that_may_write_gets_a_real_checkout(repo: GitRepo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The base shares the head's files (hard links) only when every tool is read-only."""
    import os
    from dataclasses import replace

    linked = calls_of(monkeypatch, os, "link")
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "a.py": "import os\n",
                 "b.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport sys\n"})
    assert review(repo, tmp_path / "c1") == [("F401", "a.py", 1, "preexisting"),
                                             ("F401", "a.py", 2, "introduced")]
    assert any(str(call.args[1]).endswith("b.py") for call in linked)  # dst
    linked.clear()
    writer = replace(RUFF, read_only=False)
    assert review(repo, tmp_path / "c2", writer) == [("F401", "a.py", 1, "preexisting"),
                                                     ("F401", "a.py", 2, "introduced")]
    assert linked == []


def test_repo_that_does_not_exist_or_is_not_a_repository(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    missing = tmp_path / "nowhere"
    assert main(["review", "--repo", str(missing)]) == 2
    assert capsys.readouterr().err == f"reviewbot: --repo {missing}: no such directory\n"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["review", "--repo", str(plain)]) == 2
    assert capsys.readouterr().err == (f"reviewbot: {plain} is not a git repository "
                                       "(pass --repo DIR of a checkout)\n")
    afile = tmp_path / "file.txt"
    afile.write_text("x\n")
    assert main(["review", "--repo", str(afile)]) == 2
    assert capsys.readouterr().err == f"reviewbot: --repo {afile}: not a directory\n"


# --- dependencies the user installed are seen at every revision ------------------------------

PACKAGES = Path(__file__).resolve().parents[2] / "tools" / "node_modules"
# The configurations use an installed package (as plugins do): without it ESLint fails.
ROOT_CONFIG = ('import escape from "escape-string-regexp";\n'
               'export default [{ rules: { "no-restricted-syntax": '
               '["error", { selector: "Identifier[name=/^" + escape("bad$") + "/]", '
               'message: "no bad$" }] } }];\n')
NESTED_CONFIG = ('import deepIs from "deep-is";\n'
                 'export default [{ rules: { "prefer-const": deepIs(1, 1) ? "error" : "off" } }];\n')


def install(root: Path, package: str) -> None:
    """An installed npm package, as `npm ci` leaves it: untracked, ignored."""
    target = root / "node_modules" / package
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PACKAGES / package, target)


def test_eslint_sees_the_installed_packages_at_both_revisions_in_worktrees(repo: GitRepo,
                                                                           tmp_path: Path) -> None:
    """The head is not the checked-out HEAD (and the tree is dirty): both revisions are
    worktrees, and both see the node_modules folders installed in the user's checkout."""
    from bot.linters import eslint

    repo.commit({".gitignore": "node_modules/\n", "eslint.config.mjs": ROOT_CONFIG,
                 "package.json": '{"name": "root", "private": true}\n',
                 "src/a.js": "export const bad$1 = 1;\n",
                 "packages/web/package.json": '{"name": "web"}\n',
                 "packages/web/eslint.config.mjs": NESTED_CONFIG,
                 "packages/web/w.js": "let w = 1;\nexport { w };\n"})
    repo.branch("feat")
    repo.commit({"src/a.js": "export const bad$1 = 1;\nexport const bad$2 = 2;\n",
                 "packages/web/w.js": "let w = 1;\nlet v = 2;\nexport { w, v };\n"})
    repo.checkout("main")
    install(repo.path, "escape-string-regexp")
    install(repo.path / "packages" / "web", "deep-is")
    repo.write({"src/a.js": "// work in progress\n"})  # dirty
    result = run_review(ReviewOptions(repo=repo.path, base="main", head="feat",
                                      cache_dir=tmp_path / "c",
                                      analyzers={"eslint": LinterAnalyzer(eslint.SPEC)}))
    assert [(t.status, t.message) for t in result.tools] == [("ok", "")]
    assert sorted((v.finding.rule, v.finding.path, v.finding.line, v.scope)
                  for v in result.findings) == [
        ("no-restricted-syntax", "src/a.js", 1, "preexisting"),
        ("no-restricted-syntax", "src/a.js", 2, "introduced"),
        ("prefer-const", "packages/web/w.js", 1, "preexisting"),
        ("prefer-const", "packages/web/w.js", 2, "introduced"),
    ]
    assert repo.git("status", "--porcelain") == "M src/a.js"
    assert repo.git("worktree", "list").count("\n") == 0


def symlinks(root: Path) -> list[tuple[str, str]]:
    found = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            if path.is_symlink():
                found.append((path.relative_to(root).as_posix(), os.readlink(path)))
    return sorted(found)


def test_every_worktree_links_the_installed_folders_it_lacks(repo: GitRepo) -> None:
    """The virtualenv (for mypy and pyright) and the node_modules folders of the checkout's
    packages, into head and base; a folder the revision tracks itself (vendored), a package the
    revision does not have, and build output (target/) are left alone."""
    repo.commit({".gitignore": "node_modules/\n.venv/\ntarget/\n", "package.json": "{}\n",
                 "b/package.json": "{}\n", "a.py": "x = 1\n"})
    (repo.path / "b" / "node_modules").mkdir()
    repo.write({"b/node_modules/dep.js": "// vendored\n"})
    repo.git("add", "-f", "b/node_modules/dep.js")
    repo.git("commit", "-q", "-m", "vendor")
    repo.branch("feat")
    repo.commit({"c/package.json": "{}\n", "a.py": "x = 2\n"})
    for folder in ("node_modules/x", "c/node_modules/z", ".venv", "target"):
        (repo.path / folder).mkdir(parents=True)
    (repo.path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    repo.write({"a.py": "x = 3\n"})  # dirty: the head is a worktree too
    rev = workspace.resolve(repo.path, "main", "feat")
    with workspace.checkouts(rev, ["pyproject.toml"]) as trees:
        head, base = trees.head_root, trees.base()
        assert head != repo.path
        at_head, at_base = symlinks(head), symlinks(base)
    user = str(repo.path)
    assert at_head == [(".venv", f"{user}/.venv"), ("c/node_modules", f"{user}/c/node_modules"),
                       ("node_modules", f"{user}/node_modules")]
    assert at_base == [(".venv", f"{user}/.venv"), ("node_modules", f"{user}/node_modules")]
    assert (repo.path / "node_modules" / "x").is_dir(), "the user's folders are untouched"


def test_go_and_cargo_caches_reach_the_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """They live outside the repository: the tools find them only through the environment."""
    from bot import proc

    names = ("GOPATH", "GOMODCACHE", "GOCACHE", "CARGO_HOME", "VIRTUAL_ENV")
    for name in names:
        monkeypatch.setenv(name, f"/somewhere/{name.lower()}")
    out = proc.run(["sh", "-c", " ".join(f'echo "${n}";' for n in names)]).out
    assert out.split() == [f"/somewhere/{n.lower()}" for n in names]


def test_a_changed_file_over_the_size_limit_is_not_checked_and_says_so(repo: GitRepo,
                                                                       tmp_path: Path) -> None:
    """Not read (nor its diff): skipped with a note and listed as unchecked for the gate. A
    binary file that large is just a binary file, which no tool checks anyway."""
    big = "x = 1\n" * (workspace.SIZE_LIMIT // 6 + 1)
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "big.py": "y = 2\n",
                 "moved.py": big, "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.mv("moved.py", "renamed.py")
    repo.commit({"big.py": big + "import os\n", "blob.bin": b"\0" * (workspace.SIZE_LIMIT + 1),
                 "a.py": "import sys\n"})
    changes = workspace.read_changes(workspace.resolve(repo.path, "main", "HEAD"))
    assert changes.skipped == {"big.py": "over the 10 MB size limit", "blob.bin": "binary file",
                               "renamed.py": "over the 10 MB size limit"}
    assert changes.unchecked == {"big.py", "renamed.py"}
    assert [(p.old_path, p.new_path, p.status) for p in changes.patches] == [
        ("a.py", "a.py", "modified"), ("big.py", "big.py", "modified"), (None, "blob.bin", "added"),
        ("moved.py", "renamed.py", "renamed")]
    assert changes.head_paths() == ["a.py"] and set(changes.evidence.head_files) == {"a.py"}
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"ruff": LinterAnalyzer(RUFF)}))
    assert result.unchecked == ("big.py: over the 10 MB size limit",
                                "renamed.py: over the 10 MB size limit")
    assert "big.py: not analysed (over the 10 MB size limit)" in result.notes
    assert [(v.finding.path, v.scope) for v in result.findings] == [("a.py", "introduced")]


def _feature(repo: GitRepo) -> workspace.Revisions:
    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    return workspace.resolve(repo.path, "main", "HEAD")


def test_the_base_checkout_has_one_place_per_repository_reused_by_every_run(
        repo: GitRepo, tmp_path: Path) -> None:
    """Tools key their own caches on absolute paths: the base is at the same path each run,
    and that path is empty and unregistered between runs."""
    rev = _feature(repo)
    other = GitRepo(tmp_path / "other")
    other_rev = _feature(other)
    seen = []
    for _ in range(2):
        with workspace.checkouts(rev, []) as trees:
            assert (trees.base() / "a.py").read_text() == "x = 1\n"
            seen.append(trees.base_root)
        assert repo.git("worktree", "list").count("\n") == 0
        assert not seen[-1].exists()
    assert seen[0] == seen[1] == workspace.base_home(repo.path).resolve() / "base"
    with workspace.checkouts(other_rev, []) as trees:
        assert trees.base() != seen[0]


def test_a_concurrent_run_of_the_same_repository_gets_a_place_of_its_own(repo: GitRepo) -> None:
    rev = _feature(repo)
    with workspace.checkouts(rev, []) as first, workspace.checkouts(rev, []) as second:
        assert first.base() == workspace.base_home(repo.path).resolve() / "base"
        assert second.base().parent == second.scratch
        assert (first.base() / "a.py").read_text() == (second.base() / "a.py").read_text()
        scratch = second.scratch
    assert repo.git("worktree", "list").count("\n") == 0
    assert not scratch.exists()
    with workspace.checkouts(rev, []) as again:  # the lock went with the first run
        assert again.base() == first.base_root


def test_what_a_killed_run_left_at_the_place_is_removed(repo: GitRepo) -> None:
    """SIGKILL leaves the base registered and on disk: the next run that claims the place
    removes both before making its own."""
    rev = _feature(repo)
    place = workspace.base_home(repo.path).resolve() / "base"
    place.parent.mkdir(parents=True, exist_ok=True)
    git.worktree_add(repo.path, place, "feat")
    (place / "stray.txt").write_text("left by a killed run\n")
    with workspace.checkouts(rev, []) as trees:
        assert trees.base() == place
        assert (place / "a.py").read_text() == "x = 1\n" and not (place / "stray.txt").exists()
    assert repo.git("worktree", "list").count("\n") == 0 and not place.exists()


def test_nothing_of_the_place_is_left_after_a_run(repo: GitRepo) -> None:
    """The place's path is what tools' caches key on, not the folder: a run leaves no folder
    (nor lock file) behind, so reviewing many repositories does not pile them up."""
    rev = _feature(repo)
    with workspace.checkouts(rev, []) as trees:
        assert trees.base() == workspace.base_home(repo.path).resolve() / "base"
    assert not workspace.base_home(repo.path).exists()


def test_a_lock_file_removed_as_it_is_locked_is_not_taken_as_held(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that opened the lock file just before its holder removed it would lock a file no
    one else sees: only the lock file at the path counts."""
    import fcntl
    import os

    from bot.revisions import scratch

    home = workspace.base_home(repo.path)
    real = fcntl.flock
    raced = []

    def flock_after_the_holder_left(fd: object, op: int) -> None:
        if not raced:  # the holder's release, between our open and our flock
            raced.append(True)
            (home / "lock").unlink()
        real(fd, op)  # type: ignore[arg-type]

    monkeypatch.setattr(scratch.fcntl, "flock", flock_after_the_holder_left)
    place = scratch.claim(repo.path, home)
    monkeypatch.setattr(scratch.fcntl, "flock", real)
    assert raced
    if place is not None:
        assert (home / "lock").exists()
        assert os.fstat(place.lock.fileno()).st_ino == os.stat(home / "lock").st_ino
        assert scratch.claim(repo.path, home) is None  # really held
        place.release()


def test_generated_and_minified_files_are_not_analysed_and_say_why(repo: GitRepo,
                                                                   tmp_path: Path) -> None:
    """A generated file (its header says so) or a minified one (average line over 110
    characters, as GitHub's linguist counts them) is skipped with a note, like a binary file:
    a tool's findings there are not the change's author's to fix, and not a failure."""
    bundle = "var a=1;" * 40 + "\n"
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({
        "api_pb2.py": "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler."
                      "  DO NOT EDIT!\nimport os\n",
        "gen.go": "// Code generated by stringer; DO NOT EDIT.\n\npackage x\n",
        "schema.py": '"""@generated by tools/gen.py"""\nimport os\n',
        "dist/app.js": bundle * 20,
        "style.css": ".a{color:red}" * 20 + "\n",
        "a.py": "import sys\n",
        # Long lines in a file that is not JavaScript or CSS, and a header that only mentions
        # the words further down: analysed.
        "data.py": "import os\nx = '" + "y" * 500 + "'\n",
        "notes.py": "import re\n\n\n" + "\n" * 20 + "# Code generated here? DO NOT EDIT.\n",
    })
    changes = workspace.read_changes(workspace.resolve(repo.path, "main", "HEAD"))
    assert changes.skipped == {
        "api_pb2.py": "generated file (its header says so)",
        "gen.go": "generated file (its header says so)",
        "schema.py": "generated file (its header says so)",
        "dist/app.js": "minified file (lines of 321 characters on average)",
        "style.css": "minified file (lines of 261 characters on average)",
    }
    assert changes.unchecked == set()  # not a failure: nothing was left unchecked by mistake
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"ruff": LinterAnalyzer(RUFF)}))
    assert "api_pb2.py: not analysed (generated file (its header says so))" in result.notes
    assert sorted(v.finding.path for v in result.findings) == ["a.py", "data.py", "notes.py"]
    assert result.unchecked == ()


def test_a_run_asks_git_for_worktrees_only_where_there_may_be_some(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """What killed runs left is looked for in git's worktree list only when git keeps some:
    most runs make none, and the question was a git process on every run."""
    rev = _feature(repo)
    asked = calls_of(monkeypatch, git, "worktrees")
    with workspace.checkouts(rev, [], ["a.py"]) as trees:
        assert (trees.files_base() / "a.py").read_text() == "x = 1\n"
    assert asked == []
    # A worktree a killed run left (its scratch folder gone): listed, and removed.
    left = workspace.base_home(repo.path).parent / "reviewbot-gone" / "head"
    git.worktree_add(repo.path, left, "feat")
    shutil.rmtree(left.parent)
    monkeypatch.setattr("bot.revisions.scratch._tmp", lambda: left.parent.parent)
    with workspace.checkouts(rev, [], ["a.py"]):
        pass
    assert asked and repo.git("worktree", "list").count("\n") == 0


def test_a_whole_base_made_anyway_serves_the_file_scoped_tools_too(
        repo: GitRepo, tmp_path: Path, counted: list[str]) -> None:
    """mypy needs the project: with nothing cached it makes the whole base, and ruff reads the
    same tree rather than a second one of the changed files' folders. With a cache, whether
    mypy misses is known only when it runs: ruff gets its own small tree."""
    from bot.linters.mypy import SPEC as MYPY

    require_tool("mypy")
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n[tool.mypy]\n',
                 "a.py": "import os\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport sys\n"})
    tools = {"ruff": LinterAnalyzer(RUFF), "mypy": LinterAnalyzer(MYPY)}
    result = run_review(ReviewOptions(repo=repo.path, base="main", analyzers=tools))
    assert [t.status for t in result.tools] == ["ok", "ok"], result.tools
    assert sorted((v.finding.rule, v.finding.line, v.scope) for v in result.findings) == [
        ("F401", 1, "preexisting"), ("F401", 2, "introduced")]
    assert counted == ["base"]
    counted.clear()
    run_review(ReviewOptions(repo=repo.path, base="main", analyzers=tools, cache_dir=tmp_path))
    assert sorted(counted) == ["base", "files"]


def test_a_files_base_that_failed_is_made_again_on_the_next_call(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """git refused the files-only base (a full disk): the call fails, and the next one makes
    it rather than hand back a folder that was never made."""
    from bot.errors import BotError

    rev = _feature(repo)
    real = partial.materialize
    refusals = [BotError("git checkout-index: No space left on device")]

    def refusing(repo_path: Path, head_root: Path, where: Path, todo: partial.Plan,
                 index: Path) -> None:
        (where / ".").mkdir(exist_ok=True)  # refused part way: something was made
        if refusals:
            raise refusals.pop()
        real(repo_path, head_root, where, todo, index)

    monkeypatch.setattr(partial, "materialize", refusing)
    with workspace.checkouts(rev, [], ["a.py"]) as trees:
        with pytest.raises(BotError, match="No space left"):
            trees.files_base()
        assert trees.files_how == ""
        assert (trees.files_base() / "a.py").read_text() == "x = 1\n"
        assert trees.files_how == "partial"


def test_the_changes_paths_are_each_checked_path_once_and_every_touched_one() -> None:
    changes = workspace.Changes([
        FilePatch("old.py", "new.py", "renamed"), FilePatch("m.py", "m.py", "modified"),
        FilePatch("gone.py", None, "deleted"), FilePatch("a.py", "copy.py", "copied"),
        FilePatch(None, "big.bin", "added", binary=True)])
    changes.skipped["big.bin"] = "binary file"
    assert changes.paths() == ["copy.py", "gone.py", "m.py", "new.py", "old.py"]
    assert changes.touched() == ["a.py", "big.bin", "copy.py", "gone.py", "m.py", "new.py",
                                 "old.py"]


def test_files_beyond_the_change_are_read_at_both_revisions_in_one_process(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({"user.py": "import lib\n", "lib.py": "X = 1\n", "new.py": "y\n"})
    repo.branch("feat")
    repo.commit({"lib.py": "X = 2\n", "user.py": "import lib\nlib.X\n"})
    rev = workspace.resolve(repo.path, "main", "HEAD")
    evidence = workspace.read_changes(rev).evidence
    calls = calls_of(monkeypatch, git, "cat_blobs")
    assert workspace.with_unchanged(rev, evidence, []) is evidence and calls == []
    grown = workspace.with_unchanged(rev, evidence, ["new.py"])
    assert len(calls) == 1 and grown.side("base", "new.py").lines == ("y\n",)
    assert grown.side("head", "new.py").lines == ("y\n",) and grown.line_map("new.py")
