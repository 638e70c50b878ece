"""Biome (`lint --reporter=rdjson`, the stable reporter): used when no ESLint config exists."""

from __future__ import annotations

import json
from pathlib import Path

from bot import proc
from bot.analyzer import Target
from bot.linters.base import GarbageOutput, LinterSpec, Unit, relpath
from bot.linters.eslint import JS_EXTENSIONS, has_config
from bot.model import Edit, Finding, Fix, Severity, Span

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


def parse(result: proc.Result, unit: Unit, target: Target) -> list[Finding]:
    try:
        data = json.loads(result.out)
    except json.JSONDecodeError as exc:
        raise GarbageOutput(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or "diagnostics" not in data:
        raise GarbageOutput("expected an rdjson document")
    findings = []
    for diag in data.get("diagnostics") or []:
        location = diag.get("location") or {}
        path = relpath(target.root, str(location.get("path") or ""), unit.cwd)
        code = diag.get("code") or {}
        rule = str(code.get("value") or "biome").removeprefix("lint/")
        if path is None or rule == "format":
            continue
        rng = location.get("range")
        span = _span(rng) if rng else Span(1, 1, 1, 1)
        edits = tuple(Edit(path, _span(s["range"]), str(s.get("text") or ""))
                      for s in diag.get("suggestions") or [] if s.get("range"))
        # rdjson does not say whether a suggestion is safe: offer it, never auto-apply it.
        fix = Fix(f"biome: {rule}", edits, "unsafe") if edits else None
        severity = Severity.parse(str(diag.get("severity") or "warning"))
        findings.append(Finding("biome", rule, severity, str(diag.get("message") or ""), path, span,
                                code.get("url") or None, fix, rng is None))
    return findings


SPEC = LinterSpec(
    name="biome",
    extensions=JS_EXTENSIONS,
    executables=("biome",),
    install_hint="npm install --save-dev @biomejs/biome (or scripts/install-tools.sh)",
    config_files=CONFIG_FILES,
    detect=detect,
    command=command,
    parse=parse,
)
