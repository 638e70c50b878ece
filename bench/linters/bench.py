"""What the baseline costs: `reviewbot review` (cold and warm findings cache) against a plain run
of the same linter on the head's changed files only (what a diff-filtering bot pays).

For each of ruff, eslint, golangci-lint and clippy: generate a repository with a realistic
change on a branch, then time, `--repeat` times each, alternating:
  plain  the linter's own command (the argv the adapter uses) on the head's changed files
  cold   `reviewbot review --base main --only TOOL` with an empty findings cache
  warm   the same with the cache the previous cold run left (a re-run of the same PR)
  push   a new commit on the branch (one changed file edited again) with that cache: the
         base is all cached, the head partly (the common case: every push to an open PR)
and report medians and the ratios to plain.

Tool caches outside reviewbot (Go build and golangci-lint caches) are warm for every variant,
as on a developer machine or a CI that caches them. For clippy every variant starts without a
`target/` folder (a CI job on a fresh checkout): plain builds the head once, reviewbot builds
the base worktree and the head.

    .venv/bin/python bench/linters/bench.py [--tools ruff,eslint,golangci-lint,clippy]
                                            [--repeat 5] [--out bench/linters/results.md]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from bench.repos import git, make_repo  # noqa: E402
from bot.toolpath import find_executable  # noqa: E402

REVIEWBOT = [sys.executable, "-m", "bot.cli"]


# --- generated repositories: N modules on main, a change touching a handful ------------------

def python_repo(n: int = 400, changed: int = 12) -> tuple[dict[str, str], dict[str, str]]:
    def module(i: int, extra: str = "") -> str:
        funcs = "\n\n".join(
            f"def func_{i}_{j}(items: list[int], limit: int = {j}) -> list[int]:\n"
            f"    out = []\n    for item in items:\n        if item > limit:\n"
            f"            out.append(item * {j})\n    return out\n" for j in range(12))
        unused = "import os\n" if i % 10 == 0 else ""  # a few preexisting findings
        return f'"""Module {i}."""\n{unused}import json\n\n\n{funcs}\n\n' \
               f"def dump_{i}() -> str:\n    return json.dumps([1, 2])\n{extra}"
    base = {f"pkg/sub{i % 8}/mod_{i}.py": module(i) for i in range(n)}
    base["pyproject.toml"] = '[tool.ruff]\n[tool.ruff.lint]\nselect = ["E", "F", "W", "B", "UP", "SIM"]\n'
    head = {}
    for i in range(0, changed * 7, 7):
        extra = (f"\n\ndef added_{i}(x):\n    import sys\n    if x == None:\n        return []\n"
                 f"    return [y for y in x]\n")
        head[f"pkg/sub{i % 8}/mod_{i}.py"] = module(i, extra)
    head["pkg/new_module.py"] = 'import os\n\n\ndef fresh(a, b):\n    return a == None or b\n'
    return base, head


def js_repo(n: int = 300, changed: int = 12) -> tuple[dict[str, str], dict[str, str]]:
    def module(i: int, extra: str = "") -> str:
        funcs = "\n".join(
            f"export function f{i}_{j}(items, limit = {j}) {{\n  const out = [];\n"
            f"  for (const item of items) {{\n    if (item > limit) {{\n      out.push(item * {j});\n"
            f"    }}\n  }}\n  return out;\n}}\n" for j in range(12))
        pre = f"let legacy{i} = {i};\nexport {{ legacy{i} }};\n" if i % 10 == 0 else ""
        return f"// module {i}\n{pre}{funcs}{extra}"
    base = {f"src/dir{i % 8}/m{i}.js": module(i) for i in range(n)}
    base["eslint.config.mjs"] = ('export default [{ rules: { "no-unused-vars": "error", "prefer-const": '
                                 '"error", eqeqeq: "error", "no-var": "error" } }];\n')
    base["package.json"] = '{"type": "module"}\n'
    head = {}
    for i in range(0, changed * 7, 7):
        extra = (f"\nexport function added{i}(x) {{\n  let unusedLocal = 1;\n  var y = x;\n"
                 f"  if (y == null) {{ return []; }}\n  return y;\n}}\n")
        head[f"src/dir{i % 8}/m{i}.js"] = module(i, extra)
    return base, head


def go_repo(packages: int = 30, files: int = 8,
            changed_packages: int = 3) -> tuple[dict[str, str], dict[str, str]]:
    def source(p: int, f: int, extra: str = "") -> str:
        funcs = "\n".join(
            f"func F{f}_{j}(items []int, limit int) []int {{\n\tout := []int{{}}\n"
            f"\tfor _, item := range items {{\n\t\tif item > limit+{j} {{\n"
            f"\t\t\tout = append(out, item*{j})\n"
            f"\t\t}}\n\t}}\n\treturn out\n}}\n" for j in range(10))
        pre = ("func Open" + str(f) + '() {\n\tfh, _ := os.Open("x")\n\tfh.Close()\n}\n') if f == 0 else ""
        imports = 'import "os"\n\n' if f == 0 or extra else ""
        return f"package p{p}\n\n{imports}{funcs}{pre}{extra}"
    base = {f"p{p}/f{f}.go": source(p, f) for p in range(packages) for f in range(files)}
    base["go.mod"] = "module example.com/bench\n\ngo 1.22\n"
    base[".golangci.yml"] = 'version: "2"\nlinters:\n  default: standard\n'
    head = {}
    for p in range(changed_packages):
        for f in (1, 2):
            extra = (f'\nfunc Added{f}() string {{\n\tg, _ := os.Open("y")\n\tg.Close()\n\tx := 1\n'
                     f'\tx = 2\n\t_ = x\n\treturn "ok"\n}}\n')
            head[f"p{p}/f{f}.go"] = source(p, f, extra)
    return base, head


def rust_repo(modules: int = 40, changed: int = 5) -> tuple[dict[str, str], dict[str, str]]:
    def module(i: int, extra: str = "") -> str:
        funcs = "\n".join(
            f"pub fn f{j}(items: &[i64], limit: i64) -> Vec<i64> {{\n    let mut out = Vec::new();\n"
            f"    for item in items {{\n        if *item > limit + {j} {{\n"
            f"            out.push(item * {j});\n"
            f"        }}\n    }}\n    out\n}}\n" for j in range(12))
        pre = "pub fn empty(v: &[i64]) -> bool {\n    v.len() == 0\n}\n" if i % 10 == 0 else ""
        return f"{funcs}{pre}{extra}"
    base = {f"src/m{i}.rs": module(i) for i in range(modules)}
    base["src/lib.rs"] = "".join(f"pub mod m{i};\n" for i in range(modules))
    base["Cargo.toml"] = '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n'
    base[".gitignore"] = "target/\n"
    head = {}
    for i in range(0, changed * 3, 3):
        extra = ("pub fn added(v: &[i64]) -> bool {\n    let unused = 1;\n    v.len() == 0\n}\n"
                 "pub fn copy(s: &String) -> String {\n    s.clone()\n}\n")
        head[f"src/m{i}.rs"] = module(i, extra)
    return base, head


# --- what each linter's plain run is ------------------------------------------------------------

def exe(name: str, repo: Path) -> str:
    found = find_executable([name], repo)
    if found is None:
        raise SystemExit(f"{name} not found: run scripts/install-tools.sh")
    return found


def plain_ruff(repo: Path, changed: list[str]) -> list[str]:
    return [exe("ruff", repo), "check", "--output-format=json", "--no-cache", "--force-exclude",
            "--exit-zero", "--", *[p for p in changed if p.endswith(".py")]]


def plain_eslint(repo: Path, changed: list[str]) -> list[str]:
    return [exe("eslint", repo), "-f", "json-with-metadata", "--no-warn-ignored", "--", *changed]


def plain_golangci(repo: Path, changed: list[str]) -> list[str]:
    packages = sorted({"./" + str(Path(p).parent) + "/" for p in changed if p.endswith(".go")})
    return [exe("golangci-lint", repo), "run", "--output.json.path=stdout", "--show-stats=false",
            "--max-issues-per-linter=0", "--max-same-issues=0", *packages]


def plain_clippy(repo: Path, changed: list[str]) -> list[str]:
    return ["cargo", "clippy", "--message-format=json", "--all-targets", "--keep-going", "--quiet"]


def clean_target(repo: Path) -> None:
    shutil.rmtree(repo / "target", ignore_errors=True)


@dataclass(frozen=True)
class Case:
    tool: str
    generate: Callable[[], tuple[dict[str, str], dict[str, str]]]
    plain: Callable[[Path, list[str]], list[str]]
    before_each: Callable[[Path], None] = lambda repo: None
    comment: str = "//"


def push(repo: Path, changed: list[str], comment: str, text: str) -> None:
    """A new commit on the branch that edits the first changed file again."""
    path = repo / changed[0]
    path.write_text(path.read_text() + f"{comment} {text}\n")
    git(repo, "commit", "-q", "-am", "push")


CASES = {
    "ruff": Case("ruff", python_repo, plain_ruff, comment="#"),
    "eslint": Case("eslint", js_repo, plain_eslint),
    "golangci-lint": Case("golangci-lint", go_repo, plain_golangci),
    "clippy": Case("clippy", rust_repo, plain_clippy, clean_target),
}


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def bench(case: Case, scratch: Path, repeat: int) -> dict[str, float | int | str]:
    base, head = case.generate()
    repo = scratch / case.tool
    changed = make_repo(repo, base, head)
    review = [*REVIEWBOT, "review", "--repo", str(repo), "--base", "main", "--only", case.tool,
              "--format", "json"]
    plain_argv = case.plain(repo, changed)
    # One untimed round of each, so tool-level caches (Go build cache…) are in steady state.
    case.before_each(repo)
    timed(plain_argv, repo)
    case.before_each(repo)
    timed([*review, "--no-cache"], ROOT)
    times: dict[str, list[float]] = {"plain": [], "cold": [], "warm": [], "plain_push": [], "push": []}
    for i in range(repeat):
        case.before_each(repo)
        times["plain"].append(timed(plain_argv, repo))
        cache_dir = scratch / f"cache-{case.tool}-{i}"
        case.before_each(repo)
        times["cold"].append(timed([*review, "--cache-dir", str(cache_dir)], ROOT))
        case.before_each(repo)
        times["warm"].append(timed([*review, "--cache-dir", str(cache_dir)], ROOT))
        # Pushed content is new to the tool's own caches too (golangci-lint keys on file
        # content), so the plain run it is compared with lints a different, equally new edit.
        push(repo, changed, case.comment, f"plain {i}")
        case.before_each(repo)
        times["plain_push"].append(timed(case.plain(repo, changed), repo))
        git(repo, "reset", "-q", "--hard", "HEAD~1")
        push(repo, changed, case.comment, f"review {i}")
        case.before_each(repo)
        times["push"].append(timed([*review, "--cache-dir", str(cache_dir)], ROOT))
        git(repo, "reset", "-q", "--hard", "HEAD~1")
    medians = {k: statistics.median(v) for k, v in times.items()}
    return {"tool": case.tool, "files": len(base), "changed": len(changed), **medians,
            **{f"{k}_ratio": medians[k] / medians["plain"] for k in ("cold", "warm")},
            "push_ratio": medians["push"] / medians["plain_push"]}


def table(rows: list[dict[str, float | int | str]]) -> str:
    lines = ["| linter | files | changed | plain (s) | cold (s) | warm (s) | plain, pushed (s) | push (s) "
             "| cold / plain | warm / plain | push / plain, pushed |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['tool']} | {r['files']} | {r['changed']} | {r['plain']:.3f} | {r['cold']:.3f} | "
                     f"{r['warm']:.3f} | {r['plain_push']:.3f} | {r['push']:.3f} | {r['cold_ratio']:.2f}x | "
                     f"{r['warm_ratio']:.2f}x | {r['push_ratio']:.2f}x |")
    return "\n".join(lines) + "\n"


def main() -> int:
    # Findings cached by one run are read by the next only under the same secret (bot.cache).
    os.environ.setdefault("REVIEWBOT_CACHE_SECRET", secrets.token_hex(16))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", default=",".join(CASES))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="reviewbot-bench-") as tmp:
        for name in args.tools.split(","):
            rows.append(bench(CASES[name], Path(tmp), args.repeat))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    result = table(rows)
    print(result)
    if args.out:
        args.out.write_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
