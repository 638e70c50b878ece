"""The fault matrix's rows for `reviewbot ast-edit`: SIGINT or SIGTERM at a seeded delay into
`--stage` or `--apply` of a plan of 4,000 rewrites over 200 files. Whatever the signal hit, no
source is half-written (apply is all or nothing), no temporary file or process is left, and
running the interrupted command again ends with every call rewritten exactly once: a stage is
staged and applied again, an apply applied again (refused, with nothing written, when the
first one had finished).

The rewrite matches its own output (`print($A)` to `print(str($A))`), so a rewrite applied
twice shows as `str(str(`, one not applied as a bare `print(`."""

from __future__ import annotations

import json
import re
import signal
import tempfile
import time
from pathlib import Path

from tests.conftest import GitRepo
from tests.faults.harness import Outcome, reviewbot, strays

FILES = 200
CALLS = 20
STAGE = ["ast-edit", "--pattern", "print($A)", "--rewrite", "print(str($A))", "--lang",
         "python", "--stage", "plan.json"]
APPLY = ["ast-edit", "--apply", "plan.json"]


def sources() -> dict[str, str]:
    return {f"pkg/m{i:03d}.py": "".join(f"print({j})\n" for j in range(CALLS))
            for i in range(FILES)}


def counts(root: Path) -> tuple[int, int]:
    """(calls left bare, calls rewritten more than once) over every source file."""
    bare = twice = 0
    for name in sources():
        text = (root / name).read_text()
        bare += len(re.findall(r"^print\((?!str\()", text, re.M))
        twice += text.count("str(str(")
    return bare, twice


def files_in(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def _whole(plan: Path) -> bool:
    try:
        json.loads(plan.read_bytes())
    except ValueError:
        return False
    return True


def run_edit(phase: str, interrupt: tuple[signal.Signals, float]) -> tuple[
        Outcome, Outcome, tuple[int, int], list[str], float]:
    """The interrupted command and its re-run; the counts after; what was left; seconds."""
    with tempfile.TemporaryDirectory(prefix="fault-") as folder:
        work = Path(folder)
        repo = GitRepo(work / "repo")
        repo.commit(sources())
        expected = set(sources())
        if phase == "apply":
            staged = reviewbot(STAGE, cwd=repo.path)
            assert staged.status == 0, staged.stderr
            expected.add("plan.json")
        command = STAGE if phase == "stage" else APPLY
        began = time.monotonic()
        first = reviewbot(command, cwd=repo.path, interrupt=interrupt)
        seconds = time.monotonic() - began
        left = [f"file {name}" for name in sorted(files_in(repo.path) - expected - {"plan.json"})]
        bare, twice = counts(repo.path)
        if bare not in (0, FILES * CALLS) or twice:
            left.append(f"half-written: {bare} calls bare, {twice} rewritten twice")
        left += [f"process {pid} in {cwd}" for pid, cwd in strays(work)]
        plan = repo.path / "plan.json"
        if phase == "stage" and plan.exists() and not _whole(plan):
            left.append("half-written plan.json")
        again = reviewbot(command, cwd=repo.path)
        if phase == "stage" and again.status == 0:
            again = reviewbot(APPLY, cwd=repo.path)
        left += [f"after the re-run: file {name}"
                 for name in sorted(files_in(repo.path) - expected - {"plan.json"})]
        return first, again, counts(repo.path), left, seconds
