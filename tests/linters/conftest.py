"""Helpers for the linter adapter tests: real tools on real temporary folders.

A tool the install script should have installed but did not is a failure, not a skip: these
tests exist to prove the adapters work with the real tools. Set
REVIEWBOT_ALLOW_MISSING_TOOLS=1 to skip instead (a machine without Go or Rust).
"""

from __future__ import annotations

import dataclasses
import os
import textwrap
from pathlib import Path

import pytest

from bot.analyzer import Outcome, Resolution, Target
from bot.linters.base import LinterSpec, Unit
from bot.linters.runner import LinterAnalyzer


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def resolve(spec: LinterSpec, root: Path) -> Resolution:
    resolution = LinterAnalyzer(spec).resolve(root)
    if resolution.executable is None:
        message = f"{spec.name} is not installed ({resolution.message}); run scripts/install-tools.sh"
        if os.environ.get("REVIEWBOT_ALLOW_MISSING_TOOLS") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return resolution


def lint(spec: LinterSpec, root: Path, paths: list[str], *, cache_dir: Path | None = None,
         side: str = "head", timeout: float = 300.0) -> Outcome:
    resolution = resolve(spec, root)
    target = Target(root=root, rev="HEAD", paths=tuple(paths), side=side, timeout=timeout,
                    cache_dir=cache_dir)
    return LinterAnalyzer(spec).collect(target, resolution)


def by_rule(outcome: Outcome) -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for f in outcome.findings:
        out.setdefault(f.rule, []).append(f)
    return out


def counting_spec(tmp_path: Path, base: LinterSpec) -> tuple[LinterSpec, Path]:
    """`base` with every invocation logged (argv) to a file."""
    log = tmp_path / "invocations.log"

    def command(exe: str, unit: Unit, target: Target) -> list[str]:
        argv = base.command(exe, unit, target)
        return ["sh", "-c", 'printf "%s\\n" "$*" >> "$0"; exec "$@"', str(log), *argv]

    return dataclasses.replace(base, command=command), log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []
