"""Reviews of real-shaped projects against the tools alone, as ratios, in one run.

On the generated projects of `gen.py` (a Go module, a TypeScript library, a Python package,
each with a 2-file change on `feat`), `--repeat` rounds, the variants alternating inside each
round. The review runs in-process (`bot.run.pipeline.run_review`, no interpreter start-up); each
tool's part is the `seconds` the review records for it (both revisions).

go   golangci-lint part vs `golangci-lint run` on the changed packages at the head:
       cold        empty golangci-lint cache and findings cache, both sides
       tool-warm   golangci-lint's cache as earlier reviews left it, empty findings cache
                   (a new PR on a CI that keeps golangci-lint's cache)
       base-cached the findings cache holds the base (a new push), peer on the same new head
     gopls part, next to golangci-lint, in the same reviews (the change adds functions and
     edits bodies: importers cannot see it, gopls has nothing to look at)
go-api the same with an exported signature changed as well: gopls checks p05, which calls it;
     its part also against `gopls check` of those files at the head (the checker's own CLI)
ts   eslint part vs `eslint` on the changed files at the head; typescript part vs
     `tsc --noEmit -p .` (the whole project) at the head, also on a new push with the base in
     the findings cache (bot/lsp/memo.py: the server checks the head only)
py   basedpyright part vs `basedpyright --outputjson` (the whole project) at the head, also on
     a new push

The Go build cache (GOCACHE) is warm for everything: only golangci-lint's own cache varies.

    .venv/bin/python bench/projects/run.py [--projects go ts py] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

import gen  # noqa: E402

from bench.repos import make_repo  # noqa: E402
from bot import cache as findings_cache  # noqa: E402
from bot import toolpath  # noqa: E402
from bot.model import ReviewResult  # noqa: E402
from bot.run.pipeline import ReviewOptions, run_review  # noqa: E402

# Sealed entries on disk (bot/cache.py): without a secret a review keeps its results in this
# process's memory, keyed by folder, and a "cold" review in a folder emptied by `fresh` would
# still find the previous round's.
os.environ.setdefault("REVIEWBOT_CACHE_SECRET", "bench-projects")

TS_DEPS = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reviewbot-bench" / "ts-deps"


@contextlib.contextmanager
def env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def timed(argv: Sequence[str], cwd: Path, ok: Sequence[int] = (0, 1)) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    assert done.returncode in ok, (argv, done.returncode, done.stderr[-2000:], done.stdout[-2000:])
    return elapsed


def review(repo: Path, tools: Sequence[str], cache: Path, expect: Sequence[str] = ()
           ) -> tuple[float, dict[str, float], ReviewResult]:
    """The review's wall time, each tool's part, and the result; `expect`: rules that must be
    reported as introduced (a fast review that misses the change proves nothing)."""
    start = time.perf_counter()
    # A saving session, as a local review or the warm job: the entries go to `cache` on disk.
    # Outside one a run saves nothing and keeps its results in this process's memory, keyed
    # by folder, where a "cold" review in a folder emptied by `fresh` would find them.
    with findings_cache.session(save=True):
        result = run_review(ReviewOptions(repo, base="main", only=tuple(tools), cache_dir=cache))
    elapsed = time.perf_counter() - start
    parts = {}
    for run in result.tools:
        assert run.status == "ok", (run.name, run.status, run.message)
        parts[run.name] = run.seconds or 0.0
    introduced = {v.finding.rule for v in result.findings if v.scope == "introduced"}
    assert set(expect) <= introduced, (sorted(expect), sorted(introduced))
    return elapsed, parts, result


class Samples:
    def __init__(self) -> None:
        self.data: dict[str, list[float]] = {}

    def add(self, name: str, seconds: float) -> None:
        self.data.setdefault(name, []).append(seconds)

    def median(self, name: str) -> float:
        return statistics.median(self.data[name])


def fresh(where: Path, name: str) -> Path:
    path = where / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


# --- Go -----------------------------------------------------------------------------------

def bench_go(tmp: Path, repeat: int, api: bool = False) -> list[tuple[str, float, float]]:
    label = "go-api" if api else "go"
    repo = tmp / label
    base, head = gen.go_project(api)
    make_repo(repo, base, head)
    golangci = toolpath.find_executable(["golangci-lint"], repo)
    assert golangci, "golangci-lint not installed (scripts/install-tools.sh)"
    peer = [golangci, "run", "--output.json.path=stdout", "--show-stats=false", "./p04/"]
    gopls = toolpath.find_executable(["gopls"], repo)
    assert gopls, "gopls not installed (scripts/install-tools.sh)"
    # The checker's own CLI on what the review's gopls looks at: p05's files that import p04.
    check = [gopls, "check", *(f"p05/f{f:02d}.go" for f in range(0, gen.GO_FILES, 3))]
    warm_cache = tmp / "golangci-warm"
    s = Samples()
    tools = ("golangci-lint", "gopls")
    expect = ("errcheck", "WrongArgCount") if api else ("errcheck",)
    with env(GOLANGCI_LINT_CACHE=str(warm_cache)):
        timed(peer, repo)  # the warm cache starts with the head's packages
        review(repo, tools, fresh(tmp, "findings"))
    for n in range(repeat):
        # A new push: the base sits in the findings cache the previous review left.
        gen.push(repo, "p04/f00.go", n)
        with env(GOLANGCI_LINT_CACHE=str(warm_cache)):
            s.add("peer pushed", timed(peer, repo))
            total, parts, _ = review(repo, tools, tmp / "findings", expect)
            s.add("review base-cached", parts["golangci-lint"])
            s.add("total base-cached", total)
            s.add("peer warm", timed(peer, repo))
        with env(GOLANGCI_LINT_CACHE=str(fresh(tmp, "golangci-cold"))):
            s.add("peer cold", timed(peer, repo))
        with env(GOLANGCI_LINT_CACHE=str(fresh(tmp, "golangci-cold"))):
            total, parts, _ = review(repo, tools, fresh(tmp, "findings-cold"), expect)
            s.add("review cold", parts["golangci-lint"])
            s.add("gopls cold", parts["gopls"])
            s.add("total cold", total)
        with env(GOLANGCI_LINT_CACHE=str(warm_cache)):
            total, parts, _ = review(repo, tools, fresh(tmp, "findings-cold"), expect)
            s.add("review tool-warm", parts["golangci-lint"])
            s.add("gopls tool-warm", parts["gopls"])
            s.add("total tool-warm", total)
            s.add("gopls check", timed(check, repo))
    m = s.median
    return [(f"{label}: {what}", m(ours), m(peer)) for what, ours, peer in (
        ("golangci-lint part, cold / golangci-lint cold", "review cold", "peer cold"),
        ("golangci-lint part, tool cache warm / golangci-lint warm", "review tool-warm",
         "peer warm"),
        ("golangci-lint part, base cached / golangci-lint on the push", "review base-cached",
         "peer pushed"),
        ("gopls part (tool-warm review) / golangci-lint warm", "gopls tool-warm", "peer warm"),
        ("gopls part (tool-warm review) / `gopls check` of p05's importers at the head",
         "gopls tool-warm", "gopls check"),
        ("whole review, tool-warm / golangci-lint warm", "total tool-warm", "peer warm"),
        ("whole review, base cached / golangci-lint on the push", "total base-cached",
         "peer pushed"),
        ("whole review, cold / golangci-lint cold", "total cold", "peer cold"),
    )]


# --- TypeScript ---------------------------------------------------------------------------

def bench_ts(tmp: Path, repeat: int) -> list[tuple[str, float, float]]:
    modules = TS_DEPS / "node_modules"
    assert (modules / "typescript-eslint").is_dir(), (
        f"install the library's dependencies first: cp bench/projects/package.json {TS_DEPS}/ "
        f"&& npm install --prefix {TS_DEPS}")
    repo = tmp / "ts"
    base, head = gen.ts_project()
    base[".gitignore"] = "node_modules\n"
    changed = make_repo(repo, base, head)
    (repo / "node_modules").symlink_to(modules, target_is_directory=True)
    eslint = [str(repo / "node_modules/.bin/eslint"), "--format", "json", *changed]
    tsc = [str(repo / "node_modules/.bin/tsc"), "--noEmit", "-p", "."]
    s = Samples()
    tools = ("eslint", "typescript")
    expect = ("@typescript-eslint/no-floating-promises", "TS2322")
    for n in range(repeat):
        s.add("eslint", timed(eslint, repo))
        s.add("tsc", timed(tsc, repo, ok=(0, 1, 2)))
        total, parts, _ = review(repo, tools, fresh(tmp, "findings"), expect)
        s.add("review eslint", parts["eslint"])
        s.add("review typescript", parts["typescript"])
        s.add("total", total)
        # A new push: the base sits in the findings cache the review above left.
        gen.push(repo, changed[0], n)
        s.add("tsc pushed", timed(tsc, repo, ok=(0, 1, 2)))
        _, parts, _ = review(repo, tools, tmp / "findings", expect)
        s.add("review typescript base-cached", parts["typescript"])
    return [
        ("ts: eslint part / eslint on the changed files", s.median("review eslint"), s.median("eslint")),
        ("ts: typescript part / tsc --noEmit", s.median("review typescript"), s.median("tsc")),
        ("ts: typescript part, base cached / tsc --noEmit on the push",
         s.median("review typescript base-cached"), s.median("tsc pushed")),
        ("ts: whole review / eslint + tsc", s.median("total"), s.median("eslint") + s.median("tsc")),
    ]


# --- Python -------------------------------------------------------------------------------

def bench_py(tmp: Path, repeat: int) -> list[tuple[str, float, float]]:
    repo = tmp / "py"
    base, head = gen.py_project()
    changed = make_repo(repo, base, head)
    cli = toolpath.find_executable(["basedpyright"], repo)
    assert cli, "basedpyright not installed"
    s = Samples()
    for n in range(repeat):
        s.add("cli", timed([cli, "--outputjson"], repo))
        _, parts, _ = review(repo, ("basedpyright",), fresh(tmp, "findings"),
                             ("reportAssignmentType",))
        s.add("review", parts["basedpyright"])
        gen.push(repo, changed[0], n)  # a new push, the base in the cache
        s.add("cli pushed", timed([cli, "--outputjson"], repo))
        _, parts, _ = review(repo, ("basedpyright",), tmp / "findings", ("reportAssignmentType",))
        s.add("review base-cached", parts["basedpyright"])
    return [("py: basedpyright part / basedpyright --outputjson", s.median("review"), s.median("cli")),
            ("py: basedpyright part, base cached / basedpyright --outputjson on the push",
             s.median("review base-cached"), s.median("cli pushed"))]


BENCHES: dict[str, Callable[[Path, int], list[tuple[str, float, float]]]] = {
    "go": bench_go, "go-api": lambda tmp, repeat: bench_go(tmp, repeat, api=True),
    "ts": bench_ts, "py": bench_py}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", nargs="+", default=list(BENCHES), choices=list(BENCHES))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-projects-") as tmp:
        for name in args.projects:
            rows += BENCHES[name](Path(tmp).resolve(), args.repeat)
    print(f"median of {args.repeat} rounds; ratio = ours / peer")
    print("| comparison | ours (s) | peer (s) | ratio |\n|---|---:|---:|---:|")
    for what, ours, peer in rows:
        print(f"| {what} | {ours:.2f} | {peer:.2f} | {ours / peer:.2f}x |")


if __name__ == "__main__":
    main()
