"""Biome (`lint --reporter=rdjson`, the stable reporter): used when no ESLint config exists.

rdjson carries each diagnostic's suggested edit but not whether Biome counts it safe; Biome's
own safe fixer decides: each file with suggestions goes through `lint --write` on standard
input (a scratch copy that never touches the checkout) and the suggestions whose change shows
in its output are safe, the others unsafe.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bot import proc
from bot.analyzer import Target
from bot.errors import GarbageOutput, MissingBinary, Timeout
from bot.linters.base import LinterSpec, Unit, build, json_events, relpath
from bot.linters.eslint import JS_EXTENSIONS, has_config
from bot.model import Applicability, Edit, Finding, Fix, Severity, Span
from bot.toolpath import npm_version

CONFIG_FILES = ("biome.json", "biome.jsonc")


def detect(root: Path) -> bool:
    return any((root / name).is_file() for name in CONFIG_FILES) and not has_config(root)


def command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "lint", "--reporter=rdjson", "--colors=off", "--no-errors-on-unmatched",
            "--", *unit.paths]


def _span(raw: dict[str, dict[str, int]]) -> Span:
    start, end = raw["start"], raw.get("end") or raw["start"]
    return Span(max(1, start["line"]), max(1, start["column"]), max(1, end["line"]),
                max(1, end["column"]))


def _diagnostics(result: proc.Result) -> Iterator[dict[str, Any]]:
    """Each rdjson diagnostic, one at a time."""
    seen = False
    with result.stream() as stream:
        events = json_events(stream)
        for prefix, event, value in events:
            if prefix == "diagnostics" and event == "start_array":
                seen = True
            elif prefix == "diagnostics.item" and event == "start_map":
                yield build(events, event, value)
    if not seen:
        raise GarbageOutput("expected an rdjson document")


def parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    paths: dict[str, str | None] = {}  # resolving a path costs system calls: once per file
    for diag in _diagnostics(result):
        location = diag.get("location") or {}
        name = str(location.get("path") or "")
        if name not in paths:
            paths[name] = relpath(target.root, name, unit.cwd)
        path = paths[name]
        code = diag.get("code") or {}
        rule = str(code.get("value") or "biome").removeprefix("lint/")
        if path is None or rule == "format":
            continue
        rng = location.get("range")
        span = _span(rng) if rng else Span(1, 1, 1, 1)
        edits = tuple(Edit(path, _span(s["range"]), str(s.get("text") or ""))
                      for s in diag.get("suggestions") or [] if s.get("range"))
        # Unsafe until Biome's safe fixer shows otherwise (`refine`).
        fix = Fix(f"biome: {rule}", edits, Applicability.UNSAFE) if edits else None
        severity = Severity.parse(str(diag.get("severity") or "warning"))
        yield Finding("biome", rule, severity, str(diag.get("message") or ""), path, span,
                      code.get("url") or None, fix, rng is None)


MAX_FIX_RUNS = 100  # files per run checked against the safe fixer; beyond, suggestions stay unsafe


FIX_WORKERS = 4  # files checked against the fixer at once


def _safe_output(exe: str, path: str, target: Target) -> tuple[str, str] | None:
    """(the file's text, what `biome lint --write` makes of it); None when there is no verdict."""
    try:
        text = (target.root / path).read_bytes().decode("utf-8")
        result = proc.run([exe, "lint", "--write", "--colors=off", f"--stdin-file-path={path}"],
                          cwd=target.root, timeout=min(target.timeout, 60.0),
                          stdin=text.encode("utf-8"))
    except (OSError, UnicodeDecodeError, Timeout, MissingBinary):
        return None
    if result.returncode not in (0, 1) or result.truncated or (text and not result.out):
        return None
    return text, result.out


def refine(exe: str, findings: list[Finding], unit: Unit, target: Target) -> list[Finding]:
    """Mark as safe the suggestions that `biome lint --write` (safe fixes only) applies."""
    from bot.fixes import shown_in  # here: a review without Biome does not load the fixer

    by_path: dict[str, list[int]] = {}
    for index, finding in enumerate(findings):
        if finding.fix is not None and finding.fix.edits:
            by_path.setdefault(finding.path, []).append(index)
    todo = sorted(by_path)[:MAX_FIX_RUNS]
    with ThreadPoolExecutor(max_workers=FIX_WORKERS) as pool:
        outputs = dict(zip(todo, pool.map(lambda p: _safe_output(exe, p, target), todo), strict=True))
    out = list(findings)
    for path, texts in outputs.items():
        if texts is None:
            continue  # no verdict from the fixer: the suggestions stay unsafe
        indexes = by_path[path]
        fixes = [f.fix for f in (findings[i] for i in indexes) if f.fix is not None]
        for shown in shown_in(*texts, fixes):
            finding = findings[indexes[shown]]
            assert finding.fix is not None
            out[indexes[shown]] = dataclasses.replace(
                finding, fix=dataclasses.replace(finding.fix, applicability=Applicability.SAFE))
    return out


SPEC = LinterSpec(
    name="biome",
    extensions=JS_EXTENSIONS,
    executables=("biome",),
    install_hint="npm install --save-dev @biomejs/biome (or scripts/install-tools.sh)",
    config_files=CONFIG_FILES,
    detect=detect,
    command=command,
    parse=parse,
    refine=refine,
    read_version=lambda exe: npm_version(exe, "@biomejs/biome"),
)
