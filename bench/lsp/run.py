"""Time to diagnostics through the language server vs the same checker's CLI, as a ratio.

On a generated Python project of N modules, the bot's `basedpyright` analyzer (spawn,
initialize, open the changed files and their importers, pull diagnostics, shut down) is timed
against `basedpyright --outputjson` given the same files. Both must report the same errors.

    .venv/bin/python bench/lsp/run.py [--modules 200] [--changed 1 5 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot import proc, toolpath
from bot.analyzer import Target
from bot.lsp.registry import SERVERS

MODULE = '''"""Module {i}."""

from pkg.m{prev} import total_{prev}


def total_{i}(items: list[int]) -> int:
    return total_{prev}(items) + sum(items)


def broken_{i}() -> str:
    return total_{i}([1, 2])
'''


def make_project(root: Path, modules: int) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pyrightconfig.json").write_text('{"typeCheckingMode": "standard"}\n')
    (root / "pkg" / "__init__.py").write_text("")
    for i in range(modules):
        (root / "pkg" / f"m{i}.py").write_text(MODULE.format(i=i, prev=(i - 1) % modules))


def via_server(root: Path, paths: tuple[str, ...]) -> tuple[float, int, int]:
    analyzer = SERVERS["basedpyright"]
    resolution = analyzer.resolve(root)
    start = time.perf_counter()
    outcome = analyzer.collect(Target(root, "HEAD", paths, "head"), resolution)
    elapsed = time.perf_counter() - start
    assert outcome.status == "ok", outcome.message
    errors = sum(1 for f in outcome.findings if f.path in paths and f.rule == "reportReturnType")
    return elapsed, errors, len(paths) + len(outcome.extra_paths)


def via_cli(root: Path, paths: tuple[str, ...], files: int) -> tuple[float, int]:
    cli = toolpath.find_executable(["basedpyright"], root)
    assert cli is not None, "basedpyright not installed"
    # The same files the server looked at (the changed ones and their importers).
    names = sorted(p.name for p in (root / "pkg").glob("m*.py"))
    chosen = list(paths) + [f"pkg/{n}" for n in names if f"pkg/{n}" not in paths]
    start = time.perf_counter()
    result = proc.run([cli, "--outputjson", *chosen[:files]], cwd=root, timeout=600)
    elapsed = time.perf_counter() - start
    report = json.loads(result.out)
    errors = sum(1 for d in report["generalDiagnostics"]
                 if d.get("rule") == "reportReturnType"
                 and Path(d["file"]).relative_to(root.resolve()).as_posix() in paths)
    return elapsed, errors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", type=int, default=200)
    parser.add_argument("--changed", type=int, nargs="+", default=[1, 5, 20])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lsp-") as tmp:
        root = Path(tmp)
        make_project(root, args.modules)
        print(f"{args.modules} modules; median of {args.repeat} runs; ratio = server / CLI")
        print(f"{'changed':>8} {'files':>6} {'server s':>9} {'cli s':>7} {'ratio':>6}")
        for count in args.changed:
            paths = tuple(f"pkg/m{i}.py" for i in range(0, args.modules, args.modules // count)
                          )[:count]
            server, cli = [], []
            for _ in range(args.repeat):
                seconds, server_errors, files = via_server(root, paths)
                server.append(seconds)
                seconds, cli_errors = via_cli(root, paths, files)
                cli.append(seconds)
                assert server_errors == cli_errors == len(paths), (server_errors, cli_errors)
            s, c = statistics.median(server), statistics.median(cli)
            print(f"{count:>8} {files:>6} {s:>9.2f} {c:>7.2f} {s / c:>6.2f}")


if __name__ == "__main__":
    main()
