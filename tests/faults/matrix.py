"""The fault matrix: each fault injected for real into a real review of a temporary repository
(a change that ruff finds one new and one old F401 in, and a linter the repository declares),
and what came of it: the tools' statuses, the findings lost or reported twice, the exit
status, the time taken, and what was left behind (worktrees, scratch folders, the base's place
and its lock, processes still running in the row's folder).

A refusal (exit 2) is followed by what its message says to run, and a signal (at a seeded
delay) by a second run: the second run is the one measured, and must pass.

`scripts/fault-matrix` prints the table; tests/faults/test_matrix.py holds every row to its
promise. Run alone: `python -m tests.faults.matrix`."""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.apply.conftest import FEAT, Scenario, build
from tests.conftest import GitRepo
from tests.faults import applies, edits, forges, repos
from tests.faults.harness import Outcome, reviewbot, running, strays

# ruff's findings the review must report whatever else fails: (scope, line) of each F401.
EXPECTED = Counter({("introduced", 2): 1, ("preexisting", 1): 1})
DECLARED = """fail-level: none
tool-errors: fail
tools:
  faulty:
    command: [faulty, "{files}"]
    files: ["*.py"]
    format: rdjsonl
"""
QUIET_TOOL = "#!/bin/sh\nexit 0\n"


@dataclass
class Setup:
    """What a fault changes: the declared linter's program, the environment, the options."""

    tool: str | None = QUIET_TOOL  # None: not installed
    programs: dict[str, str] = field(default_factory=dict)  # more stand-ins on PATH
    env: dict[str, str] = field(default_factory=dict)
    drop: tuple[str, ...] = ()  # variables removed from the environment
    args: tuple[str, ...] = ()
    unprivileged: bool = False
    cleanup: list[Callable[[], None]] = field(default_factory=list)


@dataclass(frozen=True)
class Fault:
    name: str
    phase: str
    prepare: Callable[[Path, Setup], None]
    exits: frozenset[int]  # the statuses the README promises for it
    status: str = "ok"  # the status of `tool`, which the fault hits
    tool: str = "faulty"
    files: tuple[tuple[str, str], ...] = ()  # more files of the repository, at both revisions
    change: Callable[[GitRepo], None] | None = None  # more done by the change, before its commit
    source: str = "a.py"  # the file ruff's findings are in
    config: str = DECLARED
    # The repository the review runs in, made from the one built (a clone of it).
    clone: Callable[[Path, GitRepo], Path] | None = None
    base: str = "main"
    # A refusal (exit 2) whose message holds the `git fetch` that fixes it: done, then the
    # review runs again and is measured. `before_hint`: what the user does first.
    refuses: bool = False
    before_hint: Callable[[Path, Path], None] | None = None
    notes: tuple[str, ...] = ()  # what the review's notes must name
    within: float | None = None  # the seconds the review must end in
    # A signal sent after a delay; the run may end any way the README lists, must leave
    # nothing, and the review run again is measured.
    interrupt: tuple[signal.Signals, float] | None = None
    reruns: frozenset[int] = frozenset({0})  # the statuses the run after it may end with
    edit: str | None = None  # "stage" or "apply": the row runs `ast-edit`, not a review
    # The row runs the apply flow, signalled before or after its git command number
    # int(fraction * total) + 1 (tests/faults/applies.py).
    apply_at: tuple[float, str] | None = None


@dataclass(frozen=True)
class Row:
    fault: Fault
    outcome: str
    lost: int
    duplicated: int
    invented: int  # findings in files the change has no finding in (a pointer linted as code)
    exit: int
    left: tuple[str, ...]
    crashed: bool
    seconds: float = 0.0
    rerun: int | None = None  # the exit status of the run after a refusal or interruption
    unsaid: tuple[str, ...] = ()  # what the notes or the message should have named

    @property
    def kept(self) -> bool:
        """Every promise held: no finding lost or doubled, a documented status, nothing left,
        within its time, and what it could not review said."""
        return (not self.crashed and self.lost == 0 and self.duplicated == 0 and not self.invented
                and self.exit in self.fault.exits and not self.left and not self.unsaid
                and (self.rerun is None or self.rerun in self.fault.reruns)
                and (self.fault.within is None or self.seconds <= self.fault.within)
                and f"{self.fault.tool} {self.fault.status}" in self.outcome)


def _tool(script: str) -> Callable[[Path, Setup], None]:
    def prepare(work: Path, setup: Setup) -> None:
        setup.tool = script.replace("{work}", str(work))
    return prepare


def _missing(work: Path, setup: Setup) -> None:
    setup.tool = None


def _hanging(work: Path, setup: Setup) -> None:
    # It says its version (else the probe's own minute-long timeout ends it), then hangs on
    # the files it is given, with a child of its own.
    setup.tool = ("#!/bin/sh\n[ \"$1\" = --version ] && echo 'faulty 1.0' && exit 0\n"
                  "sleep 120 & echo $! >> {work}/pids\necho $$ >> {work}/pids\n"
                  "sleep 120\n").replace("{work}", str(work))
    setup.args = ("--timeout", "2")


def _unreadable_path(work: Path, setup: Setup) -> None:
    locked = work / "locked"
    locked.mkdir(mode=0)
    setup.env["PATH"] = f"{locked}{os.pathsep}{os.environ['PATH']}"
    setup.unprivileged = True
    setup.cleanup.append(lambda: locked.chmod(0o700))


def _server_dies(work: Path, setup: Setup) -> None:
    # The stand-in answers the handshake, then dies in the middle of its first diagnostics.
    fake = Path(__file__).resolve().parent.parent / "lsp" / "fakes" / "fake_server.py"
    setup.programs["basedpyright-langserver"] = (f"#!/bin/sh\nexec {shlex.quote(sys.executable)} "
                                                 f"{shlex.quote(str(fake))} crash\n")


def _nothing(work: Path, setup: Setup) -> None:
    """The fault is in the repository (Fault.change, Fault.source)."""


def _detached(repo: GitRepo) -> None:
    repo.git("checkout", "-q", "--detach")


def _loops(repo: GitRepo) -> None:
    os.symlink("loop2.py", repo.path / "loop1.py")
    os.symlink("loop1.py", repo.path / "loop2.py")
    os.symlink(".", repo.path / "self")


def _lfs_pointer(repo: GitRepo) -> None:
    repo.write({"models/weights.py": "version https://git-lfs.github.com/spec/v1\n"
                "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                "size 12345\n"})


def _js_changed(repo: GitRepo) -> None:
    repo.write({"b.js": "const b = 2;\nexport { b };\n"})


def _no_home(work: Path, setup: Setup) -> None:
    setup.drop = ("HOME", "REVIEWBOT_CACHE_DIR")


def _read_only_tmp(work: Path, setup: Setup) -> None:
    frozen = work / "frozen"
    frozen.mkdir(mode=0o555)
    setup.env["TMPDIR"] = str(frozen)
    setup.unprivileged = True


def _full_disk(work: Path, setup: Setup) -> None:
    disk = work / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    setup.cleanup.append(lambda: subprocess.run(["umount", "-l", str(disk)], check=False))
    (disk / "fill").write_bytes(b"\0" * 60_000)
    with contextlib.suppress(OSError):  # until it is full
        (disk / "more").write_bytes(b"\0" * 8192)
    setup.env.update(TMPDIR=str(disk), REVIEWBOT_CACHE_DIR=str(disk / "cache"))


def _full_cache_disk(work: Path, setup: Setup) -> None:
    """The cache folder's disk is full, the temporary folder has room."""
    _full_disk(work, setup)
    del setup.env["TMPDIR"]


def _c_locale(work: Path, setup: Setup) -> None:
    setup.env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")


def _slow(work: Path, setup: Setup) -> None:
    # Half a second per run, with a child of its own: a signal finds tools running.
    setup.tool = ("#!/bin/sh\necho $$ >> {work}/pids\n"
                  "[ \"$1\" = --version ] && echo 'faulty 1.0' && exit 0\n"
                  "sleep 0.5 & wait\n").replace("{work}", str(work))


SEED = 21
_DRAW = random.Random(SEED)
# Anywhere from Python starting to the review's end (a second, on an idle machine).
INTERRUPTS = [(signum, round(_DRAW.uniform(0.2, 1.0), 2))
              for signum in (signal.SIGINT, signal.SIGTERM) * 3]
KILLS = [round(_DRAW.uniform(0.3, 0.8), 2) for _ in range(2)]
# Staging or applying 4,000 rewrites takes about as long (tests/faults/edits.py).
EDITS = [(phase, signum, round(_DRAW.uniform(0.2, 1.3), 2)) for phase in ("stage", "apply")
         for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGINT)]
# The apply flow: two seeded points, and either side of its push.
APPLIES = [(round(_DRAW.random(), 3), signal.SIGTERM, "before"),
           (round(_DRAW.random(), 3), signal.SIGINT, "after"),
           (0.999, signal.SIGINT, "before"), (0.999, signal.SIGTERM, "after")]
STOPPED = frozenset({0, 130, 143, -signal.SIGINT, -signal.SIGTERM})
# Linters that never write run at once (bot.run.pipeline): ruff and ESLint, signalled while both
# may be running. Drawn apart, so that the draws above stay as they were.
_AT_ONCE_DRAW = random.Random(SEED + 1)
AT_ONCE = [(signum, round(_AT_ONCE_DRAW.uniform(0.3, 0.6), 2))
           for signum in (signal.SIGINT, signal.SIGTERM)]
ESLINT = (("eslint.config.mjs", 'export default [{ rules: { "prefer-const": "error" } }];\n'),
          ("b.js", "const b = 1;\nexport { b };\n"))


FAULTS = (
    Fault("tool missing", "collect", _missing, frozenset({4}), "missing"),
    Fault("tool crashes", "collect", _tool("#!/bin/sh\necho 'Traceback: boom' >&2\nexit 3\n"),
          frozenset({4}), "failed"),
    Fault("tool hangs", "collect", _hanging, frozenset({4}), "timeout"),
    Fault("tool prints garbage", "collect", _tool("#!/bin/sh\necho 'this is not json'\n"),
          frozenset({4}), "failed"),
    Fault("tool prints 100 MB", "collect",
          _tool("#!/bin/sh\nhead -c 100000000 /dev/zero | tr '\\000' x\n"), frozenset({4}),
          "failed"),
    Fault("tool writes into the checkout", "collect",
          _tool("#!/bin/sh\nprintf 'x = 1\\n' >> a.py\n"), frozenset({4}), "failed"),
    # A daemon of the tool's own, holding its output open after the tool exited: its group is
    # killed once the output has stayed open for PIPE_GRACE seconds (bot.proc).
    Fault("tool leaves a child running", "collect", _tool(
        "#!/bin/sh\necho $$ >> {work}/pids\n[ \"$1\" = --version ] && echo 'faulty 1.0' && exit 0\n"
        "(cd / && exec sleep 120) &\nexit 0\n"), frozenset({0}), within=15),
    Fault("language server dies mid-session", "collect", _server_dies, frozenset({4}), "failed",
          "basedpyright", (("pyrightconfig.json", "{}\n"),)),
    Fault("head detached", "workspace", _nothing, frozenset({0}), change=_detached),
    Fault("symbolic links that loop", "workspace", _nothing, frozenset({0}), change=_loops),
    Fault("Git LFS pointer file", "workspace", _nothing, frozenset({0}), change=_lfs_pointer),
    Fault("file name not UTF-8", "workspace", _nothing, frozenset({0}),
          source=os.fsdecode(b"caf\xe9.py")),
    Fault("file name with a newline", "workspace", _nothing, frozenset({0}), source="new\nline.py"),
    Fault("PATH entry unreadable", "detect", _unreadable_path, frozenset({0})),
    Fault("no HOME", "start", _no_home, frozenset({0})),
    Fault("temporary folder read-only", "workspace", _read_only_tmp, frozenset({0, 2})),
    # TMPDIR and the cache folder on a full disk: the scratch folder goes where Python finds
    # room (its own fallback, /tmp), and the base with it, the cache's disk having less room.
    # (It failed every tool at the merge base; the README's Fail closed then lets only the
    # findings at or above the fail level without a baseline fail the gate: none at `none`.)
    Fault("disk full (64 KiB tmpfs)", "workspace", _full_disk, frozenset({0})),
    # The base is made in the cache folder (its path stable across runs, for the tools' own
    # caches); with less room there than in the temporary folder, in the temporary folder.
    Fault("disk of the cache folder full", "workspace", _full_cache_disk, frozenset({0})),
    Fault("locale not UTF-8", "start", _c_locale, frozenset({0})),
    Fault("shallow clone (depth 1)", "resolve", _nothing, frozenset({0}), clone=repos.shallow,
          base="origin/main"),
    Fault("shallow clone, remote gone", "resolve", _nothing, frozenset({2}),
          clone=repos.shallow_offline, base="origin/main", refuses=True,
          before_hint=repos.back_online),
    Fault("base branch never fetched", "resolve", _nothing, frozenset({2}),
          clone=repos.feature_only, base="origin/main", refuses=True),
    Fault("shallow clone of the branch alone", "resolve", _nothing, frozenset({2}),
          clone=repos.shallow_feature_only, base="origin/main", refuses=True),
    Fault("run from a linked worktree", "workspace", _nothing, frozenset({0}),
          clone=repos.linked_worktree),
    Fault("submodule: pointer and files inside", "workspace", _nothing, frozenset({0}),
          change=repos.submodule, notes=("vendored",)),
    # The declared linter may write into the base, so the base is a full checkout: git writing
    # and then removing 100,000 files is most of the time (the change's own work is a second).
    Fault("100,000 files", "workspace", _nothing, frozenset({0}), change=repos.hundred_thousand,
          within=300),
    *(Fault(f"{signum.name} after {delay} s", "review (seeded)", _slow, STOPPED,
            interrupt=(signum, delay)) for signum, delay in INTERRUPTS),
    *(Fault(f"{signum.name} after {delay} s, ruff and ESLint at once", "review (seeded)",
            _nothing, STOPPED, "ok", "eslint", ESLINT, change=_js_changed,
            config="fail-level: none\n", interrupt=(signum, delay)) for signum, delay in AT_ONCE),
    # README: "a run killed with SIGKILL is cleaned up by the next one".
    *(Fault(f"SIGKILL after {delay} s", "review (seeded)", _slow,
            frozenset({0, -signal.SIGKILL}), interrupt=(signal.SIGKILL, delay))
      for delay in KILLS),
    *(Fault(f"{signum.name} after {delay} s", f"ast-edit --{phase} (seeded)", _nothing, STOPPED,
            tool="ast-edit", interrupt=(signum, delay), edit=phase,
            reruns=frozenset({0, 1}) if phase == "apply" else frozenset({0}))
      for phase, signum, delay in EDITS),
    *(Fault(f"{signum.name} {when} git command {at:.0%}", "apply flow (in process)", _nothing,
            frozenset({130, 143}), "ok", "apply", interrupt=(signum, 0.0), apply_at=(at, when))
      for at, signum, when in APPLIES),
)


@contextmanager
def _workspace(fault: Fault) -> Iterator[tuple[Path, GitRepo]]:
    with tempfile.TemporaryDirectory(prefix="fault-") as folder:
        work = Path(folder)
        work.chmod(0o755)
        repo = GitRepo(work / "repo")
        repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n",
                     ".reviewbot.yml": fault.config, fault.source: "import os\n",
                     **dict(fault.files)})
        repo.branch("feature")
        if fault.change is not None:
            fault.change(repo)
        repo.commit({fault.source: "import os\nimport sys\n"})
        yield work, repo


def run(fault: Fault) -> Row:
    if fault.edit is not None:
        return _edit_row(fault)
    if fault.apply_at is not None:
        return _apply_row(fault)
    with _workspace(fault) as (work, repo):
        where = fault.clone(work, repo) if fault.clone is not None else repo.path
        setup = Setup()
        fault.prepare(work, setup)
        try:
            env = _environment(work, setup)
            args = [*setup.args, "--base", fault.base]
            began = time.monotonic()
            out = _review(where, env, setup, args, fault.interrupt)
            seconds = time.monotonic() - began
            # SIGKILL cannot be caught: what the run left is the next run's to remove.
            killed = fault.interrupt is not None and fault.interrupt[0] == signal.SIGKILL
            left = (() if killed else _leftovers(work, where)) + _crash(out)
            orphaned = len(_worktrees(where)) - 1 + len(list((work / "scratch").iterdir()))
            rerun = None
            if fault.interrupt is not None or (fault.refuses and out.status == 2):
                first, rerun = out, _again(fault, work, where, env, setup, args, out)
                out = rerun
                left += tuple(f"after the re-run: {x}" for x in _leftovers(work, where))
                left += _crash(rerun)
        finally:
            for undo in setup.cleanup:
                undo()
        row = _row(fault, out, left, seconds)
        if rerun is None:
            return row
        how = ("refused" if fault.refuses else "finished first" if first.status in (0, 1, 4)
               else f"killed, {orphaned} left for the next run" if first.status == -signal.SIGKILL
               else "stopped")
        return Row(fault, f"{how}, re-run: {row.outcome}", row.lost, row.duplicated,
                   row.invented, first.status, left, first.crashed or row.crashed, seconds,
                   rerun.status, row.unsaid + _unsaid_hint(fault, first))


def _edit_row(fault: Fault) -> Row:
    assert fault.edit is not None and fault.interrupt is not None
    first, again, (bare, twice), left, seconds = edits.run_edit(fault.edit, fault.interrupt)
    left += [*_crash(first), *_crash(again)]
    # An apply run again after it had finished is refused, nothing written: that is right.
    done = again.status == 0 or (fault.edit == "apply" and "moved since staging" in again.stderr)
    how = "finished first" if first.status in (0, 1, 4) else "stopped"
    return Row(fault, f"{how}, re-run: ast-edit {'ok' if done else 'failed'}", bare, twice, 0,
               first.status, tuple(left), first.crashed or again.crashed, seconds, again.status)


@functools.cache
def _pull_request() -> Scenario:
    """The apply flow's pull request (tests/apply/conftest.py), made once per run."""
    root = Path(tempfile.mkdtemp(prefix="fault-apply-"))
    atexit.register(shutil.rmtree, root, True)
    return build(root / "pr", FEAT)


def _apply_row(fault: Fault) -> Row:
    assert fault.apply_at is not None and fault.interrupt is not None
    at, when = fault.apply_at
    signum = fault.interrupt[0]
    with tempfile.TemporaryDirectory(prefix="fault-") as folder:
        began = time.monotonic()
        hit = applies.interrupted(_pull_request(), Path(folder), at, signum, when)
        seconds = time.monotonic() - began
    # The statuses `reviewbot ci` ends with for the exceptions the handlers raise (bot.cli).
    status = (130 if signum == signal.SIGINT else 143) if hit.stopped else 0
    done = "ok" if hit.again in ("pushed", "moved") else "failed"
    return Row(fault, f"{hit.where}: re-run: apply {done} ({hit.again})", hit.lost,
               hit.duplicated, 0, status, hit.left, False, seconds, 0)


def _crash(out: Outcome) -> tuple[str, ...]:
    """What a run that crashed said last: the row shows why it broke its promise."""
    last = out.stderr.strip().splitlines()[-1:] if out.crashed else []
    return tuple(f"crashed ({out.status}): {line[:80]}" for line in last) or (
        ("crashed",) if out.crashed else ())


def _again(fault: Fault, work: Path, where: Path, env: dict[str, str], setup: Setup,
           args: list[str], first: Outcome) -> Outcome:
    """The run after a refusal (its hint followed first) or an interruption."""
    if fault.refuses:
        if fault.before_hint is not None:
            fault.before_hint(work, where)
        for command in _fetches(first.stderr):
            subprocess.run(command, cwd=where, check=False, capture_output=True)
    return _review(where, env, setup, args, None)


def _fetches(message: str) -> list[list[str]]:
    """The `git fetch ...` commands a message tells the user to run, as argument lists."""
    found = re.findall(r"\bgit fetch [^,;()\n]*", message)
    return [command.rstrip(". ").split() for command in found[:1]]


def _unsaid_hint(fault: Fault, first: Outcome) -> tuple[str, ...]:
    if fault.refuses and not _fetches(first.stderr):
        return ("a `git fetch` to run",)
    return ()


def _environment(work: Path, setup: Setup) -> dict[str, str]:
    bin_dir = work / "bin"
    bin_dir.mkdir()
    programs = {**setup.programs, **({"faulty": setup.tool} if setup.tool is not None else {})}
    for name, script in programs.items():
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in setup.drop}
    # The bases' place and its lock inside the row's folder, where leftovers are looked for.
    if "REVIEWBOT_CACHE_DIR" not in setup.drop:
        env["REVIEWBOT_CACHE_DIR"] = str(work / "cache")
    env.update(setup.env)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.setdefault("TMPDIR", str(work))
    scratch = work / "scratch"
    scratch.mkdir()
    if env["TMPDIR"] == str(work):
        env["TMPDIR"] = str(scratch)
    return env


def _review(where: Path, env: dict[str, str], setup: Setup, args: list[str],
            interrupt: tuple[signal.Signals, float] | None) -> Outcome:
    return reviewbot(["review", "--format", "json", "--no-cache", *args], cwd=where, env=env,
                     unprivileged=setup.unprivileged, interrupt=interrupt)


def _worktrees(repo: Path) -> list[str]:
    return [line.split()[0] for line in repos.git(repo, "worktree", "list").splitlines()]


def _leftovers(work: Path, repo: Path) -> tuple[str, ...]:
    # The worktrees the row made itself (the user's own) are listed under the folder `user`.
    left = [f"worktree {path}" for path in _worktrees(repo)[1:]  # [0]: the main checkout
            if not path.startswith(str(work / "user"))]
    status = repos.git(repo, "status", "--porcelain", "--untracked-files=no")
    left += [f"checkout changed: {status}"] if status else []
    scratch = work / "scratch"
    left += [f"scratch {p.name}" for p in scratch.iterdir()] if scratch.exists() else []
    bases = work / "cache" / "bases"
    left += [f"base place {p.name}" for p in bases.iterdir()] if bases.exists() else []
    pids = work / "pids"
    recorded = [int(pid) for pid in pids.read_text().split()] if pids.exists() else []
    for pid in recorded:
        if running(pid):
            os.kill(pid, 9)
            left.append(f"process {pid}")
    left += [f"process {pid} in {where}" for pid, where in strays(work, recorded)]
    return tuple(left)


def _row(fault: Fault, out: Outcome, left: tuple[str, ...], seconds: float) -> Row:
    try:
        report = json.loads(out.stdout)
    except ValueError:
        return Row(fault, out.stderr.strip().splitlines()[-1][:60] if out.stderr.strip() else "",
                   sum(EXPECTED.values()), 0, 0, out.status, left, out.crashed, seconds)
    ruff = [(f["scope"], f["line"]) for f in report["findings"]
            if f["tool"] == "ruff" and f["path"] == fault.source]
    invented = sum(1 for f in report["findings"] if f["path"] != fault.source)
    seen = Counter(ruff)
    found = Counter({k: min(n, EXPECTED[k]) for k, n in seen.items() if k in EXPECTED})
    # Reported under another scope (unclassified: no baseline) is not lost, only not compared.
    others = sum(n for k, n in seen.items() if k not in EXPECTED)
    lost = max(0, sum(EXPECTED.values()) - sum(found.values()) - others)
    keys = Counter((f["tool"], f["rule"], f["path"], f["line"], f["column"])
                   for f in report["findings"])
    duplicated = sum(n - 1 for n in keys.values() if n > 1)
    outcome = ", ".join(f"{t['name']} {t['status']}" for t in report["tools"])
    notes = "\n".join(report["notes"])
    unsaid = tuple(f"a note on {name}" for name in fault.notes if name not in notes)
    return Row(fault, outcome, lost, duplicated, invented, out.status, left, out.crashed,
               seconds, None, unsaid)


def table(rows: list[Row]) -> str:
    head = ("fault", "phase", "outcome", "lost", "duplicated", "invented", "exit", "seconds",
            "left behind", "kept")
    body = [(r.fault.name, r.fault.phase, r.outcome, str(r.lost), str(r.duplicated),
             str(r.invented), str(r.exit) + (f", then {r.rerun}" if r.rerun is not None else ""),
             f"{r.seconds:.1f}", "; ".join((*r.left, *(f"nothing said: {u}" for u in r.unsaid)))
             or "nothing", "yes" if r.kept else "NO") for r in rows]
    widths = [max(len(line[i]) for line in (head, *body)) for i in range(len(head))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in (head, *body)]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """The rows of this module, then the forge rows (tests/faults/forges.py); `--forges`:
    the forge rows alone."""
    rows = []
    for fault in FAULTS if "--forges" not in argv else ():
        rows.append(run(fault))
        print(f"{fault.name}: done", file=sys.stderr)
    if rows:
        print(table(rows))
    writes = []
    for case in forges.CASES:
        with contextlib.redirect_stdout(sys.stderr):  # the bot's own log lines
            writes.append(forges.run(case))
        print(f"{case.name}: done", file=sys.stderr)
    print(f"\n{forges.table(writes)}\n{forges.totals(writes)}")
    return 0 if all(r.kept for r in rows) and all(w.kept for w in writes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
