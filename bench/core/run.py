"""Wall time of `reviewbot review --format json` on a change of N Python files, side by side in
one run with the real reviewdog fed by ruff (what a diff-filtering bot pays) and plain ruff.

    .venv/bin/python bench/core/run.py [--files 200] [--repeat 7] [--readme LABEL] [--before DIR]

The peer is `ruff check --output-format=rdjson FILES | reviewdog -f=rdjson -filter-mode=added
-reporter=local -diff="git diff BASE HEAD"`: ruff on the head's changed files, reviewdog keeping
what is on added lines. reviewdog is taken from tools/bin, else installed into bench/out/bin with
`go install` (the version below). Every round runs each command once, in turn, so a load
spike from another process hits all of them alike; the figures are the medians of the rounds.

Columns: the peer; `reviewbot review --no-cache` (ruff at the base and at the head, classify,
JSON); the same with a findings cache that holds the base's files (filled by the review of an
earlier change on the same base, copied afresh before each run): the base is not linted again,
the head is, and its entries are saved, as a local review does; base warm (restored cache):
`reviewbot analyze` with that cache, which a pull request's CI run only reads (docs/cache.md),
so nothing is written, beside `analyze` with nothing restored; plain ruff on the head's files
(the shared cost); ruff on the base's files (the price of a real baseline, which the peer does
not pay). `--readme LABEL` records the medians as a row of bench/core/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REVIEWDOG = "github.com/reviewdog/reviewdog/cmd/reviewdog@v0.21.0"
README = HERE / "README.md"
ROWS_START, ROWS_END = "<!-- rows -->", "<!-- /rows -->"

MODULE = '''"""Module {i}."""

import os
import json


def load_{i}(path):
    with open(path) as handle:
        data = json.load(handle)
    if data == None:
        return {{}}
    return data


def total_{i}(items):
    result = 0
    for item in items:
        result += item["count"]
    return result


def describe_{i}(items):
    lines = []
    for item in items:
        lines.append(str(item))
    return "\\n".join(lines)
'''


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build(root: Path, files: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "bench")
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["E", "F", "W"]\n')
    pkg = repo / "pkg"
    pkg.mkdir()
    for i in range(files):
        (pkg / f"mod_{i}.py").write_text(MODULE.format(i=i))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    # Another change on the same base: reviewing it first fills the findings cache with the
    # base's files, as an earlier push of the pull request would.
    git(repo, "checkout", "-q", "-b", "earlier")
    for i in range(files):
        (pkg / f"mod_{i}.py").write_text(MODULE.format(i=i) + f"\n\nEARLIER_{i} = 1\n")
    git(repo, "commit", "-q", "-am", "earlier")
    git(repo, "checkout", "-q", "-b", "feature", "main")
    for i in range(files):  # a realistic edit: a new helper, a shifted block, one new finding
        text = MODULE.format(i=i).replace(
            "def total_", f"def helper_{i}(x):\n    unused_{i} = x * 2\n    return x\n\n\ndef total_")
        (pkg / f"mod_{i}.py").write_text(text)
    git(repo, "commit", "-q", "-am", "change")
    return repo


def reviewdog() -> Path:
    """tools/bin/reviewdog if the tools set-up put it there, else one this bench installs."""
    for candidate in (ROOT / "tools" / "bin" / "reviewdog", ROOT / "bench" / "out" / "bin" / "reviewdog"):
        if candidate.is_file() and _version(candidate) == REVIEWDOG.rsplit("@", 1)[1]:
            return candidate
    go = shutil.which("go")
    if go is None:
        raise SystemExit("reviewdog is not installed and go is not on PATH: install Go, or put "
                         f"reviewdog in tools/bin (go install {REVIEWDOG})")
    out = ROOT / "bench" / "out" / "bin"
    out.mkdir(parents=True, exist_ok=True)
    print(f"installing {REVIEWDOG} into {out.relative_to(ROOT)}", file=sys.stderr)
    subprocess.run([go, "install", REVIEWDOG], check=True,
                   env={**os.environ, "GOBIN": str(out), "GOFLAGS": "-mod=mod"})
    return out / "reviewdog"


def _version(exe: Path) -> str | None:
    """The module version Go recorded in the binary (`reviewdog -version` says "master" for a
    `go install` build)."""
    go = shutil.which("go")
    if go is None:
        return None
    listing = subprocess.run([go, "version", "-m", str(exe)], capture_output=True, text=True).stdout
    found = re.search(r"^\s*mod\s+github.com/reviewdog/reviewdog\s+(\S+)", listing, re.M)
    return found.group(1) if found else None


def run(argv: list[str], cwd: Path, ok: tuple[int, ...] = (0, 1),
        env: dict[str, str] | None = None) -> bytes:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, env=env)
    if result.returncode not in ok:
        raise SystemExit(f"{argv[0]} failed ({result.returncode}): {result.stderr.decode()[-2000:]}")
    return result.stdout


def peer(ruff: list[str], dog: list[str], cwd: Path) -> bytes:
    """`ruff ... | reviewdog ...`: two processes joined by a pipe, as a shell would run them."""
    first = subprocess.Popen(ruff, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    second = subprocess.run(dog, cwd=cwd, stdin=first.stdout, capture_output=True)
    assert first.stdout is not None
    first.stdout.close()
    if first.wait() not in (0, 1) or second.returncode != 0:
        raise SystemExit(f"reviewdog pipeline failed: {second.stderr.decode()[-2000:]}")
    return second.stdout


def timed(action: Callable[[], bytes]) -> tuple[float, bytes]:
    start = time.perf_counter()
    out = action()
    return time.perf_counter() - start, out


def nothing() -> None:
    return None


def record(label: str, row: list[str]) -> None:
    """Replace (or add) the row called `label` in README's results table."""
    text = README.read_text()
    start, end = text.index(ROWS_START) + len(ROWS_START), text.index(ROWS_END)
    rows = [r for r in text[start:end].strip("\n").splitlines()
            if r.strip() and not r.startswith(f"| {label} |")]
    rows.append("| " + " | ".join([label, *row]) + " |")
    README.write_text(text[:start] + "\n" + "\n".join(rows) + "\n" + text[end:])


def main() -> None:
    # Findings cached by one run are read by the next only under the same secret (bot.cache).
    os.environ.setdefault("REVIEWBOT_CACHE_SECRET", secrets.token_hex(16))
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--readme", metavar="LABEL", help="record the medians in README.md")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the source tree whose bot is measured (default: this one)")
    parser.add_argument("--before", type=Path, metavar="DIR",
                        help="also measure the bot of this source tree (e.g. an older commit's "
                             "`git archive`) in the same rounds")
    parser.add_argument("--before-label", default="before",
                        help="its row's label in README.md (default: before)")
    args = parser.parse_args()
    dog_exe = reviewdog()
    root = Path(tempfile.mkdtemp(prefix="reviewbot-bench-"))
    try:
        repo = build(root, args.files)
        base_tree = root / "base"
        git(repo, "worktree", "add", "-q", "--detach", str(base_tree), "main")
        changed = [f"pkg/mod_{i}.py" for i in range(args.files)]
        ruff = str(BIN / "ruff")
        plain = [ruff, "check", "--output-format=json", "--no-cache", *changed]
        rdjson = [ruff, "check", "--output-format=rdjson", "--no-cache", *changed]
        dog = [str(dog_exe), "-f=rdjson", "-filter-mode=added", "-reporter=local",
               "-diff=git diff main feature"]
        # name: (untimed preparation, the timed command)
        cases: dict[str, tuple[Callable[[], None], Callable[[], bytes]]] = {
            "peer": (nothing, lambda: peer(rdjson, dog, repo)),
            "ruff": (nothing, lambda: run(plain, repo)),
            "base": (nothing, lambda: run(plain, base_tree)),
        }
        sources = {"": args.source, **({"before": args.before} if args.before else {})}
        for tag, source in sources.items():
            cases.update(bot_cases(tag, source, repo, root))
        times: dict[str, list[float]] = {name: [] for name in cases}
        outs = {}
        for name, (prepare, action) in cases.items():  # once untimed: the OS caches, the bytecode
            prepare()
            outs[name] = action()
        for _ in range(args.repeat):
            for name, (prepare, action) in cases.items():
                prepare()
                seconds, outs[name] = timed(action)
                times[name].append(seconds)
        run(["git", "worktree", "remove", "--force", str(base_tree)], repo, ok=(0,))
        # All must report the same thing: the findings on the lines the change added.
        # -reporter=local prints each diagnostic in protobuf text form, one location each.
        reported = re.findall(r"location:\{path:\"[^\"]*pkg/mod_", outs["peer"].decode())
        total = len(json.loads(outs["ruff"]))
        introduced = {name: json.loads(outs[name])["summary"]["introduced"]
                      for name in cases if name.startswith(("cold", "warm"))}
        for name in ("analyze", "restored"):
            introduced[name] = sum(f["scope"] == "introduced" for f in
                                   json.loads(outs[name])["result"]["findings"])
        assert set(introduced.values()) == {len(reported)}, (introduced, len(reported))
        assert 0 < len(reported) < total, "the peer filtered nothing: the bench measures no filter"
        med = {name: statistics.median(ts) for name, ts in times.items()}
        load = os.getloadavg()[0]
        print(f"{args.files} changed files, {total} findings at the head, {len(reported)} on added "
              f"lines; median of {args.repeat} alternated rounds; {os.cpu_count()} cores, "
              f"load {load:.2f}")
        print(f"  peer: ruff rdjson | reviewdog -filter-mode=added:  {med['peer']:.3f}s")
        for tag, source in sources.items():
            cold, warm = med["cold" + tag], med["warm" + tag]
            print(f"  reviewbot ({tag or 'this tree'}, {source}):")
            print(f"    review --format json --no-cache:     {cold:.3f}s  {cold / med['peer']:.2f}x the peer")
            print(f"    review --format json, base cached:   {warm:.3f}s  {warm / med['peer']:.2f}x the peer")
            if not tag:
                for name, what in (("analyze", "analyze, nothing restored:          "),
                                   ("restored", "analyze, base warm (restored cache): ")):
                    print(f"    {what}{med[name]:.3f}s  {med[name] / med['peer']:.2f}x the peer")
        print(f"  plain ruff check, head's changed files:          {med['ruff']:.3f}s")
        print(f"  plain ruff check, base's files (the baseline):   {med['base']:.3f}s")
        if args.readme:
            for tag in reversed(sources):
                cold, warm = med["cold" + tag], med["warm" + tag]
                record(args.before_label if tag else args.readme, [
                    datetime.now(UTC).strftime("%Y-%m-%d"), str(args.files), str(total),
                    f"{load:.2f}", *(f"{med[n]:.3f}" for n in ("peer",)), f"{cold:.3f}",
                    f"{warm:.3f}", f"{med['ruff']:.3f}", f"{med['base']:.3f}",
                    f"**{cold / med['peer']:.2f}x**", f"**{warm / med['peer']:.2f}x**"])
            print(f"recorded as {args.readme!r} in {README.relative_to(ROOT)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bot_cases(tag: str, source: Path, repo: Path, root: Path
              ) -> dict[str, tuple[Callable[[], None], Callable[[], bytes]]]:
    """`cold<tag>` and `warm<tag>`: the bot of `source`, without a cache and with the base's
    files in its cache."""
    # What the `reviewbot` console script runs, with the bot of `source` first on the path.
    bot = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
           "review", "--format", "json"]
    # With bytecode caches, as an installed package runs (pip compiles it at install time);
    # they go to the bench's folder, not into the source tree.
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "PYTHONPATH": str(source.resolve()), "PYTHONPYCACHEPREFIX": str(root / "pyc"),
           # The findings cache is read only where its entries verify (bot.cache).
           "REVIEWBOT_CACHE_SECRET": os.environ.get("REVIEWBOT_CACHE_SECRET", "bench")}
    seed, cache = root / f"seed{tag}", root / f"cache{tag}"
    run([*bot, "--base", "main", "--head", "earlier", "--cache-dir", str(seed)], repo, env=env)

    def seeded() -> None:  # untimed: the base's entries only, the head's files are new
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(seed, cache)

    cases = {
        "cold" + tag: (nothing, lambda: run([*bot, "--base", "main", "--no-cache"], repo, env=env)),
        "warm" + tag: (seeded, lambda: run([*bot, "--base", "main", "--cache-dir", str(cache)],
                                           repo, env=env)),
    }
    if not tag:  # what a pull request's CI run pays: the restored cache read, nothing saved
        analyze = [*bot[:3], "analyze", "--base", "main", "--out", str(root / "analysis.json")]

        def analyzed(folder: Path) -> bytes:
            run(analyze, repo, env={**env, "REVIEWBOT_CACHE_DIR": str(folder)})
            return (root / "analysis.json").read_bytes()
        cases["analyze"] = (nothing, lambda: analyzed(root / "empty"))  # nothing restored
        cases["restored"] = (seeded, lambda: analyzed(cache))
    return cases


if __name__ == "__main__":
    main()
