"""The real-history bench: for each commit pair of pairs.json, the bot's verdicts beside an
exact-match oracle and a diff filter; every disagreement goes to results/<language>.jsonl.

Per pair, in temporary clones removed afterwards: `reviewbot review --base P --head C --only TOOL
--format json --no-cache` (the bot checkout given by --bot, default this repository), the linter
alone at P and at C (exact-match oracle), and the head's findings on added lines of the diff
(diff filter). Projects come from --mirror DIR (<owner>+<name>/repo) or are cloned from their URL.

    .venv/bin/python bench/history/run.py --mirror DIR [--limit N] [--language python]
        [--project NAME] [--bot DIR] [--out DIR] [--recheck results/python.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare
import linters
from projects import CACHE, HERE, Project, load, source

ROOT = HERE.parent.parent
TIMEOUT = 600.0


def sh(cwd: Path, *argv: str) -> str:
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


def node_modules(repo: Path, commit: str) -> Path:
    """The npm devDependencies of package.json as it was at `commit` (a pair's head), installed
    once per version of package.json into the cache: a pinned set for every pair would run older
    configurations against plugins that have since changed their config shape."""
    source = sh(repo, "git", "log", "-1", "--format=%H", commit, "--", "package.json").strip()
    folder = CACHE / "node" / source[:12]
    if not (folder / "node_modules" / ".bin" / "eslint").exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text(sh(repo, "git", "show", f"{source}:package.json"))
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund"],
                       cwd=folder, check=True, capture_output=True)
    return folder / "node_modules"


@contextmanager
def checkouts(repo: Path, npm: bool) -> Iterator[tuple[Path, Path]]:
    with tempfile.TemporaryDirectory(prefix="reviewbot-history-") as scratch:
        pair = (Path(scratch) / "head", Path(scratch) / "base")
        for where in pair:
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(repo),
                            str(where)], check=True)
            if npm:
                with (where / ".git" / "info" / "exclude").open("a") as exclude:
                    exclude.write("/node_modules\n")
        yield pair


def checkout(where: Path, commit: str, modules: Path | None) -> None:
    sh(where, "git", "checkout", "-q", "-f", "--detach", commit)
    if modules is not None:
        link = where / "node_modules"
        if link.is_symlink():
            link.unlink()
        link.symlink_to(modules, target_is_directory=True)


def texts(root: Path, paths: set[str]) -> dict[str, list[str]]:
    out = {}
    for path in paths:
        file = root / path
        if file.is_file():
            out[path] = file.read_text(errors="replace").splitlines()
    return out


def review(bot: Path, head: Path, pair: dict[str, object], tool: str,
           env: dict[str, str]) -> tuple[dict[str, Any], float, int]:
    argv = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
            "review", "--repo", str(head), "--base", str(pair["base"]), "--head",
            str(pair["head"]), "--only", tool, "--format", "json", "--no-cache", "--quiet"]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=head, env={**env, "PYTHONPATH": str(bot)},
                          capture_output=True, text=True, timeout=TIMEOUT)
    seconds = time.perf_counter() - start
    try:
        return json.loads(done.stdout), seconds, done.returncode
    except json.JSONDecodeError:
        return {"error": done.stderr.strip()[-500:]}, seconds, done.returncode


def bot_findings(report: dict[str, Any]) -> list[compare.BotFinding]:
    return [compare.BotFinding(f["path"], int(f["line"]), int(f["column"]), str(f["rule"]),
                               str(f["message"]), str(f["scope"]), f.get("where"),
                               f.get("matched_by"))
            for f in report.get("findings") or []]


def one_pair(project: Project, pair: dict[str, object], dirs: tuple[Path, Path], bot: Path,
             env: dict[str, str], repo: Path) -> dict[str, Any]:
    head_dir, base_dir = dirs
    base, head = str(pair["base"]), str(pair["head"])
    # both sides lint with the head's dependencies, as the bot does (it links the head's)
    modules = node_modules(repo, head) if project.node_modules else None
    node_bin = modules / ".bin" if modules else None
    checkout(head_dir, head, modules)
    checkout(base_dir, base, modules)
    diff = compare.parse_diff(sh(head_dir, "git", "diff", "-M50%", "-U0", "--no-color",
                                 "--no-ext-diff", base, head))
    head_files = sorted(set(diff.added) | set(diff.renamed.values()) | set(
        sh(head_dir, "git", "diff", "--name-only", "--diff-filter=AMR", "-M50%", base,
           head).split()))
    head_files = [f for f in head_files if f.endswith(project.extensions)]
    back = {v: k for k, v in diff.renamed.items()}
    base_files = [back.get(f, f) for f in head_files]
    # the bot's own worktrees must not share the oracle's cargo target folder
    bot_env = {k: v for k, v in env.items() if k != "CARGO_TARGET_DIR"}
    report, bot_seconds, status = review(bot, head_dir, pair, project.tool, bot_env)
    at_base = linters.run(project.tool, base_dir, base_files, env, node_bin, TIMEOUT)
    at_head = linters.run(project.tool, head_dir, head_files, env, node_bin, TIMEOUT)
    record: dict[str, Any] = {
        "project": project.name, "language": project.language, "tool": project.tool,
        "base": base, "head": head, "files": head_files, "bot_status": status,
        "seconds": {"bot": round(bot_seconds, 3), "linter_base": round(at_base.seconds, 3),
                    "linter_head": round(at_head.seconds, 3)}}
    tools = report.get("tools") or []
    tool_ok = all(t.get("status") == "ok" for t in tools)
    errors = [e for e in (at_base.error, at_head.error) if e]
    if "error" in report or not tool_ok or errors:
        record["failed"] = {"bot": report.get("error") or [t for t in tools
                                                         if t.get("status") != "ok"],
                            "linter": errors}
        return record
    start = time.perf_counter()
    diff_new = compare.diff_filter(at_head.findings, diff)
    record["seconds"]["diff_filter"] = round(
        at_head.seconds + time.perf_counter() - start, 3)
    paths_base = {f.path for f in at_base.findings}
    paths_head = {f.path for f in at_head.findings}
    oracle_new = compare.oracle(at_base.findings, at_head.findings, diff.renamed,
                                texts(base_dir, paths_base), texts(head_dir, paths_head))
    rows = compare.join(bot_findings(report), list(at_head.findings), oracle_new, diff_new)
    record["counts"] = {
        "findings": len(rows),
        "bot_new": sum(r["bot"] in ("introduced", "changed") for r in rows),
        "oracle_new": sum(r["oracle"] == "new" for r in rows),
        "diff_new": sum(r["diff"] == "new" for r in rows),
        "unjoined": sum("absent" in (r["bot"], r["oracle"]) for r in rows)}
    record["disagreements"] = [r for r in rows if compare.disagrees(r)]
    # seen by one side only, yet no disagreement (both call it old): kept to check the join
    record["one_sided"] = [r for r in rows if "absent" in (r["bot"], r["oracle"])
                           and not compare.disagrees(r)]
    return record


def selected(args: argparse.Namespace) -> list[dict[str, object]]:
    if args.recheck:
        pairs = []
        for name in args.recheck:
            for row in Path(name).read_text().splitlines():
                record = json.loads(row)
                if record.get("disagreements") or record.get("failed"):
                    pairs.append({k: record[k] for k in ("project", "language", "base", "head")})
        return pairs
    pairs = json.loads((HERE / "pairs.json").read_text())
    return [p for p in pairs if (not args.language or p["language"] in args.language)
            and (not args.project or p["project"] in args.project)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, help="local mirrors, <owner>+<name>/repo")
    parser.add_argument("--limit", type=int, help="at most N pairs per project")
    parser.add_argument("--language", action="append")
    parser.add_argument("--project", action="append")
    parser.add_argument("--bot", type=Path, default=ROOT, help="the reviewbot checkout to run")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--recheck", nargs="+", help="re-run the pairs with disagreements in these")
    args = parser.parse_args(argv)
    _, projects = load()
    pairs = selected(args)
    bot_commit = sh(args.bot, "git", "rev-parse", "HEAD").strip()
    args.out.mkdir(parents=True, exist_ok=True)
    env = linters.environment([ROOT / "tools" / "bin", ROOT / ".venv" / "bin",
                               Path.home() / ".cargo" / "bin"], None)
    written: set[str] = set()
    for project in projects:
        todo = [p for p in pairs if p["project"] == project.name][:args.limit]
        if not todo:
            continue
        repo = source(project, args.mirror)
        target = CACHE / "cargo-target" / project.slug
        tool_env = linters.environment([], target) | {"PATH": env["PATH"]}
        out = args.out / f"{project.language}.jsonl"
        if project.language not in written:
            out.write_text("")
            written.add(project.language)
        with checkouts(repo, project.node_modules) as dirs:
            for number, pair in enumerate(todo, 1):
                record = one_pair(project, pair, dirs, args.bot, tool_env, repo)
                record["bot_commit"] = bot_commit
                with out.open("a") as stream:
                    stream.write(json.dumps(record) + "\n")
                state = ("FAILED" if "failed" in record
                         else f"{len(record['disagreements'])} disagreements")
                print(f"{project.name} {number}/{len(todo)} {str(pair['head'])[:12]}: {state} "
                      f"{record['seconds']}", file=sys.stderr, flush=True)
    shutil.rmtree(CACHE / "cargo-target", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
