"""Environment faults: what the machine around a review is missing or refuses. Each review
still ends with a status the README lists and one line saying what is wrong, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

import pytest

from tests.conftest import ROOT, GitRepo, require_tool, requires, requires_root
from tests.faults.harness import as_user, reviewbot
from tests.security.unprivileged import reaching


@pytest.fixture
def py_change(repo: GitRepo) -> GitRepo:
    """A change that ruff finds one new F401 in: the gate fails with status 1."""
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n", "a.py": "import os\n"})
    repo.branch("feature")
    repo.commit({"a.py": "import os\nimport sys\n"})
    return repo


def test_an_unreadable_folder_on_path_is_passed_over(py_change: GitRepo, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0)
    try:
        with reaching(as_user()) if as_user() else nullcontext([]) as prefix:
            probe = subprocess.run([*prefix, "ls", str(locked)], capture_output=True)
        assert probe.returncode != 0, "the folder must be unreadable for the run below"
        env = {**os.environ, "PATH": f"{locked}{os.pathsep}{os.environ['PATH']}"}
        out = reviewbot(["review", "--base", "main", "--format", "json", "--no-cache"],
                        cwd=py_change.path, env=env, unprivileged=True)
    finally:
        locked.chmod(0o700)
    assert not out.crashed, out.stderr
    assert out.status == 1, out.stderr
    report = json.loads(out.stdout)
    assert [(t["name"], t["status"]) for t in report["tools"]] == [("ruff", "ok")]
    assert report["summary"]["introduced"] == 1


def test_a_locale_that_is_not_utf8_reviews_non_ascii_names(repo: GitRepo) -> None:
    require_tool("ruff")
    name = "ünï cødé.py"
    repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n", name: "import os\n"})
    repo.branch("feature")
    repo.commit({name: "import os\nimport sys\né = 'ü'\n"})
    # An ASCII locale, with Python's own ways around it (coercion, UTF-8 mode) switched off.
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
           "PYTHONCOERCECLOCALE": "0"}
    out = reviewbot(["review", "--base", "main", "--format", "json", "--no-cache"],
                    cwd=repo.path, env=env)
    assert not out.crashed, out.stderr
    assert out.status == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert [t["status"] for t in report["tools"]] == ["ok"]
    assert [(f["path"], f["rule"]) for f in report["findings"] if f["scope"] == "introduced"] == [
        (name, "F401")]


def test_no_home_and_no_cache_folder_set(py_change: GitRepo) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "REVIEWBOT_CACHE_DIR")}
    out = reviewbot(["review", "--base", "main", "--format", "json"], cwd=py_change.path, env=env)
    assert not out.crashed and out.status == 1, out.stderr
    assert json.loads(out.stdout)["summary"]["introduced"] == 1


def test_a_temporary_folder_that_cannot_be_written(py_change: GitRepo, tmp_path: Path) -> None:
    frozen = tmp_path / "frozen"
    frozen.mkdir(mode=0o555)
    env = {**os.environ, "TMPDIR": str(frozen)}
    out = reviewbot(["review", "--base", "main", "--format", "json", "--no-cache"],
                    cwd=py_change.path, env=env, unprivileged=True)
    assert not out.crashed, out.stderr
    assert out.status in (1, 2), out.stderr  # reviewed, or one line saying what to fix
    if out.status == 1:
        assert json.loads(out.stdout)["summary"]["introduced"] == 1
    assert py_change.git("worktree", "list").count("\n") == 0


def test_a_reader_that_closes_the_output_early(py_change: GitRepo) -> None:
    """`reviewbot review | head -1`: the reader is gone before the report is written. The run
    ends as a program killed by SIGPIPE does (141, what a shell shows), saying so, never with
    a traceback."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "bot.cli", "review", "--base", "main",
                               "--no-cache"], cwd=py_change.path, stdout=write,
                              stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              timeout=120)
    finally:
        os.close(write)
    err = done.stderr.decode()
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert done.returncode == 141, err
    assert err.startswith("reviewbot: "), err


def test_no_writable_temporary_folder_at_all() -> None:
    """TMPDIR unset and /tmp and /var/tmp read-only (mounted so in a namespace of the run's
    own): Python's last resort for temporary files is the current folder, the user's checkout,
    where the run's worktrees would then be made. Refused instead, saying what to set.

    The run starts from a read-only view of this checkout outside /tmp and /var/tmp (a bind
    mount in its own folder), so that hiding them hides no interpreter or source of its own,
    wherever the checkout is (a clone under /tmp)."""
    requires_root("a mount namespace")
    requires(None if Path("/dev/shm").is_dir() else "no /dev/shm")
    hidden = [Path("/tmp").resolve(), Path("/var/tmp").resolve()]
    interpreter = Path(sys.executable).absolute()
    requires(None if interpreter.is_relative_to(ROOT)
             or not any(Path(sys.prefix).resolve().is_relative_to(h) for h in hidden)
             else "this interpreter lies under /tmp outside the checkout")
    with tempfile.TemporaryDirectory(dir="/dev/shm") as folder:  # outside /tmp: still visible
        view = Path(folder) / "checkout"
        view.mkdir()
        run = view / interpreter.relative_to(ROOT) if interpreter.is_relative_to(ROOT) \
            else interpreter
        repo = GitRepo(Path(folder) / "repo")
        repo.commit({"a.py": "import os\n"})
        repo.branch("feature")
        repo.commit({"a.py": "import os\nimport sys\n"})
        repo.checkout("main")  # the head gets a worktree of its own
        read_only = ('mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && '
                     "mount -t tmpfs -o ro,size=4k tmpfs /tmp && "
                     'mount -t tmpfs -o ro,size=4k tmpfs /var/tmp && shift 2 && exec "$@"')
        env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
        done = subprocess.run(
            ["unshare", "-m", "sh", "-c", read_only, "sh", str(ROOT), str(view), str(run),
             "-m", "bot.cli", "review", "--base", "main", "--head", "feature", "--no-cache"],
            cwd=repo.path, capture_output=True, timeout=120,
            env={**env, "PYTHONPATH": str(view), "REVIEWBOT_CACHE_DIR": f"{folder}/cache"})
        err = done.stderr.decode()
        assert (done.returncode, "Traceback" in err) == (2, False), err
        assert "TMPDIR" in err, err
        assert repo.git("status", "--porcelain", "--ignored") == ""
        assert repo.git("worktree", "list").count("\n") == 0
