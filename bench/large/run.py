"""The review at size: a 20,000-file repository (`gen.py`), changes of 250, 500 and 1,000
files, the review against the same linters run alone, as ratios, in one run.

Per change and round, in turn:

- **linters alone, cold**: `ruff check`, `eslint` on the head's changed files and
  `golangci-lint run` on the head's changed packages, one after the other, with an empty
  golangci-lint cache (the Go build cache stays warm throughout, as on a CI that keeps it);
- **review, cold**: `reviewbot review --base main --only ruff --only eslint --only
  golangci-lint --format json` in its own process, an empty findings cache and an empty
  golangci-lint cache: both revisions linted;
- **linters alone on the push / review, base cached**: a new push on the change (a comment line
  added to each changed file): the review with the findings cache the cold review left (the base
  hits, the head misses), against the linters alone on the push's changed files; golangci-lint's
  cache as the cold review left it, for both;
- **review, default tools**: the cold review without `--only` (gopls joins, as a default
  review of this repository runs it), for the record.

Memory: the bot's own peak RSS is exact (`getrusage(RUSAGE_SELF)` in the bot's process at
exit); the process tree's peak is sampled every 50 ms from /proc (the sum of the RSS of the bot
and all its descendants at each sample); "largest child" is `getrusage(RUSAGE_CHILDREN)`'s
max RSS (the largest single descendant, exact). The verdicts are checked against a count
diff of the linters alone at the base and at the head (per file and rule).

    .venv/bin/python bench/large/run.py [--sizes 250 500 1000] [--repeat 3] [--quick]
        [--profile 1000] [--keep DIR] [--tree DIR] [--heavy auto 1]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import gen  # noqa: E402

from bench.repos import git  # noqa: E402
from bot import toolpath  # noqa: E402

TS_DEPS = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reviewbot-bench"
           / "ts-deps" / "node_modules")
TOOLS = ("ruff", "eslint", "golangci-lint")
GOLANGCI_FLAGS = ["--output.json.path=stdout", "--show-stats=false", "--max-issues-per-linter=0",
                  "--max-same-issues=0", "--uniq-by-line=false"]
# The bot in its own process, reporting its own and its children's peak RSS on exit.
BOT = ("import atexit, resource, sys\n"
       "def _peak():\n"
       "    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
       "    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
       "    sys.stderr.write(f'\\nPEAK {own} {kids}\\n')\n"
       "atexit.register(_peak)\n"
       "from bot.cli import main\n"
       "sys.exit(main(sys.argv[1:]))\n")
PROFILE = ("import cProfile, sys\n"
           "from bot.cli import main\n"
           "out = sys.argv.pop(1)\n"
           "cProfile.run('status = main(sys.argv[1:])', out)\n")


# --- measuring ----------------------------------------------------------------------------

def _tree_rss(root: int) -> int:
    """The RSS (bytes) of `root` and every descendant now, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [root]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        pid = todo.pop()
        todo += parents.get(pid, [])
        try:
            with open(f"/proc/{pid}/statm", "rb") as handle:
                total += int(handle.read().split()[1]) * page
        except OSError:
            pass
    return total


@dataclass
class Run:
    seconds: float
    out: str = ""
    own_mb: float = 0.0
    tree_mb: float = 0.0
    child_mb: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)


def measured(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None,
             ok: Sequence[int] = (0, 1)) -> Run:
    """Run `argv`, timing it and sampling its process tree's RSS every 50 ms."""
    peak = [0]
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], _tree_rss(child.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = child.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    assert child.returncode in ok, (argv[:4], child.returncode, err[-3000:], out[-2000:])
    run = Run(elapsed, out, tree_mb=peak[0] / 2**20)
    for line in err.splitlines():
        if line.startswith("PEAK "):
            own, kids = line.split()[1:]
            run.own_mb, run.child_mb = int(own) / 1024, int(kids) / 1024
    return run


# --- the two sides ------------------------------------------------------------------------

@dataclass(frozen=True)
class Bench:
    repo: Path
    tmp: Path
    tree: Path  # the bot's source tree
    ruff: str
    eslint: str
    golangci: str

    def env(self, golangci_cache: Path, heavy: str = "") -> dict[str, str]:
        # The bot's bytecode cached, as an installed package has it (pip compiles it).
        return {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                "GOLANGCI_LINT_CACHE": str(golangci_cache), "PYTHONPATH": str(self.tree),
                "PYTHONPYCACHEPREFIX": str(self.tmp / "pyc"),
                **({"REVIEWBOT_HEAVY_TOOLS": heavy} if heavy else {})}

    def linters_alone(self, paths: Sequence[str], golangci_cache: Path) -> Run:
        py = [p for p in paths if p.endswith(".py")]
        ts = [p for p in paths if p.endswith(".ts")]
        go = sorted({"./" + str(Path(p).parent) + "/" for p in paths if p.endswith(".go")})
        env = self.env(golangci_cache)
        parts = {
            "ruff": measured([self.ruff, "check", "--no-cache", "--output-format=json-lines",
                              "--exit-zero", *py], self.repo, env),
            "eslint": measured([self.eslint, "-f", "json", "--no-warn-ignored", *ts], self.repo,
                               env),
            "golangci-lint": measured([self.golangci, "run", *GOLANGCI_FLAGS, *go], self.repo,
                                      env),
        }
        total = Run(sum(r.seconds for r in parts.values()),
                    tree_mb=max(r.tree_mb for r in parts.values()))
        total.parts = {k: r.seconds for k, r in parts.items()}
        total.out = json.dumps({k: r.out for k, r in parts.items()})
        return total

    def review(self, cache: Path, golangci_cache: Path, only: bool = True,
               profile: Path | None = None, heavy: str = "") -> Run:
        code = BOT if profile is None else PROFILE
        argv = [sys.executable, "-c", code, *([str(profile)] if profile else []), "review",
                "--repo", str(self.repo), "--base", "main", "--format", "json", "--cache-dir",
                str(cache), *(a for t in TOOLS for a in ("--only", t) if only)]
        run = measured(argv, self.repo, self.env(golangci_cache, heavy))
        if profile is None:
            report = json.loads(run.out)
            bad = [t for t in report["tools"] if t["status"] != "ok"]
            assert not bad, bad
            run.parts = {t["name"]: t.get("seconds") or 0.0 for t in report["tools"]}
        return run


def _counts(out: str, repo: Path) -> Counter[tuple[str, str, str]]:
    """(path, rule, message) counts of the linters-alone output."""
    raw = json.loads(out)
    found: Counter[tuple[str, str, str]] = Counter()
    for line in raw["ruff"].splitlines():
        item = json.loads(line)
        found[(os.path.relpath(item["filename"], repo), item["code"], item["message"])] += 1
    for entry in json.loads(raw["eslint"] or "[]"):
        for message in entry["messages"]:
            found[(os.path.relpath(entry["filePath"], repo), message["ruleId"],
                   message["message"])] += 1
    for issue in json.loads(raw["golangci-lint"].splitlines()[0])["Issues"] or []:
        found[(issue["Pos"]["Filename"], issue["FromLinter"], issue["Text"])] += 1
    return found


def expected(bench: Bench, size: int, paths: Sequence[str]) -> tuple[int, int]:
    """(introduced, fixed) by a count diff of the linters alone at the base and the head, per
    file, rule and message (the generated changes move findings, never reword them)."""
    cache = bench.tmp / "golangci-expected"
    git(bench.repo, "checkout", "-q", "main")
    at_base = [p for p in paths if (bench.repo / p).exists()]
    base = _counts(bench.linters_alone(at_base, cache).out, bench.repo)
    git(bench.repo, "checkout", "-q", f"change-{size}")
    head = _counts(bench.linters_alone(paths, cache).out, bench.repo)
    changed = set(paths)
    keys = {k for k in base | head if k[0] in changed}
    return (sum(max(0, head[k] - base[k]) for k in keys),
            sum(max(0, base[k] - head[k]) for k in keys))


def verdicts(run: Run) -> tuple[int, int, int]:
    summary = json.loads(run.out)["summary"]
    return summary["introduced"], summary["fixed"], summary["unclassified"]


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def copy(source: Path, to: Path) -> Path:
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(source, to, symlinks=True)
    return to


@dataclass
class Samples:
    data: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, value: float) -> None:
        self.data.setdefault(key, []).append(value)

    def __getitem__(self, key: str) -> float:
        return statistics.median(self.data[key])


def bench_size(bench: Bench, size: int, paths: Sequence[str], repeat: int, full: bool,
               heavy: Sequence[str] = ("",)) -> dict[str, tuple[Samples, str]]:
    """Each setting of REVIEWBOT_HEAVY_TOOLS in `heavy` ("": the variable unset) against the
    same linters-alone runs, alternated within each round: its samples and its verdicts."""
    want = expected(bench, size, paths)
    out = {}
    samples = {h: Samples() for h in heavy}
    checks: dict[str, list[bool]] = {h: [] for h in heavy}
    got: dict[str, str] = {}
    tmp = bench.tmp
    for _ in range(repeat):
        git(bench.repo, "checkout", "-q", f"change-{size}")
        alone = bench.linters_alone(paths, fresh(tmp / "gl-peer"))
        git(bench.repo, "checkout", "-q", f"change-{size}-push")
        copy(tmp / "gl-peer", tmp / "gl-push-peer")
        push = bench.linters_alone(paths, tmp / "gl-push-peer").seconds
        for h in heavy:
            s = samples[h]
            s.add("alone cold", alone.seconds)
            s.add("alone mb", alone.tree_mb)
            for tool, seconds in alone.parts.items():
                s.add(f"alone {tool}", seconds)
            s.add("alone push", push)
            git(bench.repo, "checkout", "-q", f"change-{size}")
            cold = bench.review(fresh(tmp / "findings"), fresh(tmp / "gl-bot"), heavy=h)
            s.add("cold", cold.seconds)
            for key, value in (("own mb", cold.own_mb), ("tree mb", cold.tree_mb),
                               ("child mb", cold.child_mb)):
                s.add(key, value)
            for tool, seconds in cold.parts.items():
                s.add(f"cold {tool}", seconds)
            checks[h].append(verdicts(cold)[:2] == want and verdicts(cold)[2] == 0)
            # A new push: the base in the findings cache, golangci-lint's cache as the review
            # left it.
            git(bench.repo, "checkout", "-q", f"change-{size}-push")
            warm = bench.review(copy(tmp / "findings", tmp / "findings-push"),
                                copy(tmp / "gl-bot", tmp / "gl-push-bot"), heavy=h)
            s.add("warm", warm.seconds)
            s.add("warm own mb", warm.own_mb)
            checks[h].append(verdicts(warm)[:2] == want and verdicts(warm)[2] == 0)
            got[h] = f"{verdicts(cold)} cold, {verdicts(warm)} warm"
            if full:
                git(bench.repo, "checkout", "-q", f"change-{size}")
                whole = bench.review(fresh(tmp / "findings"), fresh(tmp / "gl-bot"), only=False,
                                     heavy=h)
                s.add("default", whole.seconds)
                s.add("default tree mb", whole.tree_mb)
    for h in heavy:
        note = (f"{want[0]} introduced, {want[1]} fixed: right" if all(checks[h])
                else f"**wrong** (expected {want[0]} introduced, {want[1]} fixed; got {got[h]})")
        out[h] = (samples[h], note)
    return out


def table(results: dict[tuple[int, str], tuple[Samples, str]], full: bool) -> str:
    rows = ["| change | heavy tools | linters alone cold (s) | review cold (s) | ratio | linters "
            "alone on the push (s) | review base cached (s) | ratio | bot RSS (MB) | tree RSS "
            "peak (MB) | largest child (MB) | verdicts |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for (size, heavy), (s, note) in results.items():
        rows.append(f"| {size} | {heavy or 'auto'} | {s['alone cold']:.2f} | {s['cold']:.2f} | "
                    f"{s['cold'] / s['alone cold']:.2f}x | {s['alone push']:.2f} | "
                    f"{s['warm']:.2f} | {s['warm'] / s['alone push']:.2f}x | {s['own mb']:.0f} | "
                    f"{s['tree mb']:.0f} | {s['child mb']:.0f} | {note} |")
    rows += ["", "| change | heavy tools | " + " | ".join(f"{t} alone / in the review (s)"
                                                         for t in TOOLS)
             + " | cold s per 100 files | base cached s per 100 files |"
             + (" default tools cold (s) |" if full else ""),
             "|---:|---|" + "---:|" * (len(TOOLS) + 2 + int(full))]
    for (size, heavy), (s, _) in results.items():
        parts = " | ".join(f"{s[f'alone {t}']:.2f} / {s[f'cold {t}']:.2f}" for t in TOOLS)
        rows.append(f"| {size} | {heavy or 'auto'} | {parts} | {100 * s['cold'] / size:.2f} | "
                    f"{100 * s['warm'] / size:.2f} |"
                    + (f" {s['default']:.2f} |" if full else ""))
    return "\n".join(rows)


def main() -> None:
    # Findings cached by one run are read by the next only under the same secret (bot.cache).
    os.environ.setdefault("REVIEWBOT_CACHE_SECRET", secrets.token_hex(16))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(gen.SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="a tenth of the repository, changes of 20 and 40 files, one round")
    parser.add_argument("--full", action="store_true",
                        help="also the cold review with the default tools (gopls joins)")
    parser.add_argument("--profile", type=int, metavar="SIZE",
                        help="only profile one cold review of this change (cProfile, to --keep)")
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the bot's source tree to run (another checkout: a before/after)")
    parser.add_argument("--heavy", nargs="+", default=[""], metavar="SETTING",
                        help="REVIEWBOT_HEAVY_TOOLS for the review, each alternated within a "
                             "round (auto, 1, 2; default: unset)")
    args = parser.parse_args()
    sizes = (20, 40) if args.quick else tuple(args.sizes)
    repeat = 1 if args.quick else args.repeat
    assert (TS_DEPS / "typescript-eslint").is_dir(), (
        f"install the ESLint of the generated repository first: cp bench/projects/package.json "
        f"{TS_DEPS.parent}/ && npm install --prefix {TS_DEPS.parent}")
    golangci = toolpath.find_executable(["golangci-lint"], ROOT)
    ruff = toolpath.find_executable(["ruff"], ROOT) or shutil.which("ruff", path=str(ROOT / ".venv/bin"))
    assert golangci and ruff, "golangci-lint and ruff: scripts/setup"
    with tempfile.TemporaryDirectory(prefix="bench-large-") as scratch:
        tmp = Path(scratch).resolve()
        repo = args.keep.resolve() if args.keep else tmp / "repo"
        if not (repo / ".git").is_dir():
            started = time.perf_counter()
            # The sizes of a full build always: the changes are nested, each its own branch.
            changes = gen.build(repo, tuple(sorted({*sizes, *gen.SIZES})) if not args.quick
                                else sizes, TS_DEPS, tenth=args.quick)
            print(f"built {repo} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        else:
            changes = {n: sorted(git(repo, "diff", "--name-only", "main", f"change-{n}").split())
                       for n in sizes}
        bench = Bench(repo, tmp, args.tree.resolve(), ruff, str(repo / "node_modules/.bin/eslint"), golangci)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(bench.tree / "bot")],
                       env=bench.env(tmp), check=True)
        if args.profile:
            git(repo, "checkout", "-q", f"change-{args.profile}")
            out = (args.keep or Path.cwd()) / f"review-{args.profile}.prof"
            run = bench.review(fresh(tmp / "findings"), fresh(tmp / "gl-bot"), profile=out)
            print(f"{run.seconds:.2f} s; profile in {out}")
            return
        results = {}
        for size in sizes:
            for heavy, result in bench_size(bench, size, changes[size], repeat, args.full,
                                            args.heavy).items():
                results[(size, heavy)] = result
            print(f"change of {size}: done", file=sys.stderr)
        git(repo, "checkout", "-q", "main")
    load = os.getloadavg()
    print(f"median of {repeat} round(s), {os.cpu_count()} cores, load average {load[0]:.1f} "
          f"at the end; ratio = review / linters alone (same run)\n")
    print(table(results, args.full))


if __name__ == "__main__":
    main()
