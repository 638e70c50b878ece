"""The batched git verbs answer what the one-by-one verbs answer, and leave every case they
cannot answer exactly (a range, an option, a revision that is not a commit) to them."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from bot import git
from bot.errors import BotError
from bot.revisions import workspace
from tests.conftest import GitRepo, calls_of


@pytest.fixture
def two(repo: GitRepo) -> GitRepo:
    repo.commit({"a.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x = 2\n"})
    return repo


def test_commits_are_the_toplevel_and_each_revision_from_one_process(two: GitRepo) -> None:
    (two.path / "sub").mkdir()
    found = git.commits(two.path / "sub", ["HEAD", "main", "feature~1"])
    assert found == (git.toplevel(two.path), [git.rev_parse(two.path, r) for r in
                                               ("HEAD", "main", "feature~1")])


@pytest.mark.parametrize("rev", ["main..feature", "main...feature", "--all", "-q", "nope",
                                 "HEAD:a.py", "HEAD\nmain", ""])
def test_what_rev_parse_verify_would_refuse_is_left_to_it(two: GitRepo, rev: str) -> None:
    assert git.commits(two.path, ["HEAD", rev]) is None
    assert git.rev_parse(two.path, rev) is None


def test_commits_outside_a_repository_is_none(tmp_path: Path) -> None:
    assert git.commits(tmp_path, ["HEAD"]) is None
    assert git.commits(tmp_path / "missing", ["HEAD"]) is None


def test_named_is_one_process_when_all_are_commits_else_each_asked(
        two: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shas = [git.rev_parse(two.path, r) for r in ("HEAD", "main")]
    calls = calls_of(monkeypatch, git, "git")
    assert git.named(two.path, ["HEAD", "main"]) == (git.toplevel(two.path), shas)
    assert len(calls) == 2  # named's one process, then toplevel's above
    assert git.named(two.path, ["HEAD", "nope"]) == (git.toplevel(two.path), [shas[0], None])
    with pytest.raises(BotError, match="is not a git repository"):
        git.named(tmp_path, ["HEAD"])


def test_resolve_names_the_target_branch_when_no_base_is_given(two: GitRepo) -> None:
    rev = workspace.resolve(two.path, None, "HEAD")
    assert (rev.base_ref, rev.merge_base) == ("main", git.rev_parse(two.path, "main"))
    two.git("branch", "-m", "main", "trunk")
    with pytest.raises(BotError, match="no target branch"):
        workspace.resolve(two.path, None, "HEAD")


def test_resolve_says_what_is_wrong_as_before(two: GitRepo, tmp_path: Path) -> None:
    rev = workspace.resolve(two.path, "main", "HEAD")
    assert (rev.merge_base, rev.head) == (git.rev_parse(two.path, "main"),
                                          git.rev_parse(two.path, "HEAD"))
    with pytest.raises(BotError, match=r"--base 'main\.\.feature' is not a branch or commit"):
        workspace.resolve(two.path, "main..feature", "HEAD")
    with pytest.raises(BotError, match="--head 'nope' is not a commit"):
        workspace.resolve(two.path, "main", "nope")
    with pytest.raises(BotError, match="is not a git repository"):
        workspace.resolve(tmp_path, "main", "HEAD")


def test_head_status_is_rev_parse_and_two_statuses_in_one(two: GitRepo) -> None:
    """HEAD's commit, whether the tracked files are as committed, and everything not clean as
    `status_all` lists it (the guard's snapshot), from one process."""
    two.commit({"b.py": "b = 1\n"})
    assert git.head_status(two.path) == (git.rev_parse(two.path, "HEAD"), True, {})
    (two.path / "untracked file.py").write_text("y = 1\n")  # untracked files do not count
    (two.path / ".git" / "info" / "exclude").write_text("build/\n")
    (two.path / "build").mkdir()
    (two.path / "build" / "out.o").write_text("o")
    assert git.head_status(two.path)[:2] == (git.rev_parse(two.path, "HEAD"), True)
    (two.path / "a.py").write_text("x = 3\n")
    two.git("mv", "b.py", "c d.py")
    head, clean, status = git.head_status(two.path)
    assert (head, clean) == (git.rev_parse(two.path, "HEAD"), False)
    assert status == git.status_all(two.path) == {
        "untracked file.py": "??", "build/": "!!", "a.py": " M", "c d.py": "R "}
    two.git("add", "a.py")  # staged counts too
    assert git.head_status(two.path)[2]["a.py"] == "M "


def test_head_status_of_an_unborn_branch(repo: GitRepo) -> None:
    assert git.head_status(repo.path) == (None, True, {})


def test_worktree_remove_leaves_no_registration_whether_or_not_its_folder_is_there(
        two: GitRepo, tmp_path: Path) -> None:
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for where in (kept, gone):
        git.worktree_add(two.path, where, "main")
    git.worktree_remove(two.path, kept)
    for child in sorted(gone.rglob("*"), reverse=True):
        child.unlink() if child.is_file() or child.is_symlink() else child.rmdir()
    gone.rmdir()
    git.worktree_remove(two.path, gone)
    assert git.worktrees(two.path) == [git.toplevel(two.path)]
    assert not kept.exists()


def test_cat_blobs_reads_specs_and_blob_ids_in_order_through_one_process(two: GitRepo) -> None:
    blob = two.git("rev-parse", "main:a.py")
    assert git.cat_blobs(two.path, [f"{blob}", "HEAD:a.py", "HEAD:missing.py", "HEAD:", blob]) == [
        b"x = 1\n", b"x = 2\n", None, None, b"x = 1\n"]


def _runs_git(node: ast.AST) -> bool:
    """A call of `git.git(...)`, or an argv list or tuple that starts with "git"."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "git" and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "git":
        return True
    return isinstance(node, ast.List | ast.Tuple) and bool(node.elts) \
        and isinstance(node.elts[0], ast.Constant) and node.elts[0].value == "git"


def test_git_runs_only_in_the_git_module() -> None:
    package = Path(git.__file__).parent
    found = [f"{path.relative_to(package.parent)}:{node.lineno}"
             for path in sorted(package.rglob("*.py")) if path != Path(git.__file__)
             for node in ast.walk(ast.parse(path.read_text("utf-8"))) if _runs_git(node)]
    assert found == []


def test_the_sweep_probe_commits_are_unreferenced_and_reproducible(repo: GitRepo) -> None:
    head = repo.commit({"a.py": "x = 1\n", ".cfg": "old\n"})
    old_blob = git.blob_id(repo.path, head, ".cfg")
    assert old_blob is not None and git.blob_id(repo.path, head, "missing") is None
    repo.write({".cfg": "new\n"})
    newer = repo.commit()
    refs = repo.git("for-each-ref")
    root = git.empty_commit(repo.path)
    probe = git.tree_commit(repo.path, newer, {".cfg": old_blob, "a.py": None}, root)
    assert probe == git.tree_commit(repo.path, newer, {".cfg": old_blob, "a.py": None}, root)
    assert repo.git("ls-tree", "--name-only", probe) == ".cfg"
    assert git.blob_id(repo.path, probe, ".cfg") == old_blob
    assert repo.git("for-each-ref") == refs and repo.git("status", "--porcelain") == ""
    assert git.changed_paths(repo.path, head, newer, [".cfg", "a.py"]) == [".cfg"]
    assert git.commits_between(repo.path, head, newer) == [newer]
    assert git.is_ancestor(repo.path, head, newer) and not git.is_ancestor(repo.path, newer, head)
    assert git.blame_line(repo.path, newer, "a.py", 1) == head
    assert git.author(repo.path, head) == "Test"


def test_a_folder_outside_any_repository(tmp_path: Path) -> None:
    assert git.listed_files(tmp_path) is None
    assert git.toplevel_of(tmp_path) is None
    assert not git.is_ignored(tmp_path)


def test_a_worktree_registration_left_locked_by_an_add_cut_short_is_pruned(
        two: GitRepo, tmp_path: Path) -> None:
    """What `git worktree add` leaves when a signal kills it: the registration, still locked
    ("initializing"), and no folder. A plain `git worktree prune` keeps a locked one."""
    where = tmp_path / "cut-short"
    git.worktree_add(two.path, where, "HEAD")
    two.git("worktree", "lock", "--reason", "initializing", str(where))
    shutil.rmtree(where)
    two.git("worktree", "prune")
    assert where in git.worktrees(two.path)  # locked: git keeps it
    git.worktree_prune(two.path)
    assert where not in git.worktrees(two.path)


def test_a_git_lfs_filter_without_git_lfs_says_what_to_install(two: GitRepo, tmp_path: Path
                                                                ) -> None:
    """A repository whose git configuration runs Git LFS, on a machine without it: git itself
    fails (its status runs the filter); the one line says what to install."""
    if shutil.which("git-lfs"):
        pytest.skip("git-lfs is installed here")
    lfs = {"filter.lfs.process": "git-lfs filter-process", "filter.lfs.required": "true"}
    for key, value in lfs.items():
        two.git("config", key, value)
    two.write({".gitattributes": "*.bin filter=lfs -text\n", "big.bin": "pointer\n"})
    two.git("add", "-f", "--", ".gitattributes")
    with pytest.raises(BotError) as caught:
        git.git(two.path, "add", "--", "big.bin")
    message = str(caught.value)
    assert message.endswith("; this repository's git configuration runs Git LFS (filter.lfs), "
                            "which is not installed here: install Git LFS (git-lfs)"), message
