"""The linters run alone, the way a naive bot would: one command per checkout, its JSON read into
plain (path, line, column, rule, message) records. Rules are named as reviewbot's adapters name
them (bot/linters/), so that the three verdicts can be joined on (path, line, rule)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    column: int
    rule: str
    message: str


@dataclass(frozen=True)
class Run:
    findings: tuple[Finding, ...]
    seconds: float
    error: str  # empty when the linter ran


# golangci-lint: staticcheck-family codes and govet analyzers name the check (bot/linters/golangci.py)
_GO_CODE = re.compile(r"^(?P<code>[A-Z]{1,4}\d{3,5}|[a-z][a-z0-9]+): ")


def _rel(root: Path, name: str) -> str:
    path = Path(name)
    return (path.resolve().relative_to(root.resolve()) if path.is_absolute() else path).as_posix()


def ruff(root: Path, out: str) -> list[Finding]:
    found = []
    for item in json.loads(out or "[]"):
        rule = item.get("code") or item.get("name") or "ruff"
        location = item.get("location") or {}
        found.append(Finding(_rel(root, item["filename"]), int(location.get("row") or 1),
                             int(location.get("column") or 1), str(rule), str(item["message"])))
    return found


def eslint(root: Path, out: str) -> list[Finding]:
    found = []
    for result in json.loads(out or "[]"):
        for message in result.get("messages") or []:
            found.append(Finding(_rel(root, result["filePath"]), int(message.get("line") or 1),
                                 int(message.get("column") or 1), str(message.get("ruleId")),
                                 str(message["message"])))
    return found


def golangci(root: Path, out: str) -> list[Finding]:
    data = json.loads(out.strip() or "{}")
    if (data.get("Report") or {}).get("Error"):
        raise ValueError(str(data["Report"]["Error"]))
    found = []
    for issue in data.get("Issues") or []:
        linter = str(issue.get("FromLinter") or "golangci-lint")
        text = str(issue.get("Text") or "")
        match = _GO_CODE.match(text)
        pos = issue.get("Pos") or {}
        found.append(Finding(_rel(root, str(pos.get("Filename") or "")), int(pos.get("Line") or 1),
                             int(pos.get("Column") or 1),
                             f"{linter}/{match['code']}" if match else linter, text))
    return found


def clippy(root: Path, out: str) -> list[Finding]:
    found = []
    for row in out.splitlines():
        if not row.startswith("{"):
            continue
        item = json.loads(row)
        message = item.get("message") or {}
        if item.get("reason") != "compiler-message" or message.get("level") not in (
                "warning", "error"):
            continue
        spans = [s for s in message.get("spans") or [] if s.get("is_primary")]
        if not spans or not (root / spans[0]["file_name"]).is_file():
            continue
        span = spans[0]
        text = str(message.get("message") or "")
        if span.get("label"):
            text = f"{text}: {span['label']}"
        code = str((message.get("code") or {}).get("code") or "rustc")
        found.append(Finding(Path(span["file_name"]).as_posix(), int(span["line_start"]),
                             int(span["column_start"]), code, text))
    return found


def command(tool: str, files: list[str], node_bin: Path | None) -> list[str]:
    if tool == "ruff":
        return ["ruff", "check", "--output-format=json", "--no-cache", "--exit-zero",
                "--force-exclude", "--", *files]
    if tool == "eslint":
        assert node_bin is not None
        return [str(node_bin / "eslint"), "-f", "json", "--no-warn-ignored", "--", *files]
    if tool == "golangci-lint":
        return ["golangci-lint", "run", "--output.json.path=stdout", "--show-stats=false",
                "--path-mode=abs", "--max-issues-per-linter=0", "--max-same-issues=0",
                "--uniq-by-line=false", "--allow-parallel-runners", "./..."]
    return ["cargo", "clippy", "--message-format=json", "--all-targets", "--keep-going", "--quiet"]


PARSERS = {"ruff": ruff, "eslint": eslint, "golangci-lint": golangci, "clippy": clippy}


def run(tool: str, root: Path, files: list[str], env: dict[str, str],
        node_bin: Path | None, timeout: float) -> Run:
    """The linter alone on `files` (file-scoped linters) or the whole module (Go, Rust)."""
    present = [f for f in files if (root / f).is_file()]
    if tool in ("ruff", "eslint") and not present:
        return Run((), 0.0, "")
    argv = command(tool, present, node_bin)
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        return Run((), time.perf_counter() - start, f"{tool} timed out after {timeout:.0f} s")
    seconds = time.perf_counter() - start
    try:
        findings = PARSERS[tool](root, done.stdout)
    except (ValueError, KeyError) as exc:
        return Run((), seconds, f"{tool}: {exc}: {done.stderr.strip()[-300:]}")
    if tool == "eslint" and done.returncode not in (0, 1):
        return Run((), seconds, f"eslint exit {done.returncode}: {done.stderr.strip()[-300:]}")
    if tool == "clippy" and done.returncode != 0 and not findings:
        return Run((), seconds, f"clippy exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return Run(tuple(findings), seconds, "")


def environment(extra_path: list[Path], cargo_target: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_"))}
    env["PATH"] = os.pathsep.join([*(str(p) for p in extra_path), env.get("PATH", "")])
    env["GOTOOLCHAIN"] = "local"
    env["GOFLAGS"] = "-mod=mod"
    if cargo_target is not None:
        env["CARGO_TARGET_DIR"] = str(cargo_target)
    return env
