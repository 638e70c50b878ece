"""Linters as data: a `LinterSpec` says how to detect, find, run and parse one linter, and
`LinterAnalyzer` turns any spec into an `Analyzer` with the shared run/timeout/garbage handling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from bot import proc
from bot.analyzer import Outcome, Resolution, Target
from bot.model import Finding
from bot.toolpath import find_executable

LinterScope = Literal["file", "package", "crate", "project"]
BATCH = 200  # paths per invocation: keeps argv under the OS limit


class GarbageOutput(Exception):
    """The linter printed something that is not its documented output format."""


@dataclass(frozen=True)
class Unit:
    """One invocation: run in `cwd` (relative to the checkout root) over `paths`.

    File-scoped linters get one unit per batch of files; package/crate-scoped ones get one per
    package or crate, and their findings are distributed back to files by path.
    """

    cwd: str
    paths: tuple[str, ...]


def file_units(root: Path, paths: Sequence[str]) -> list[Unit]:
    return [Unit(".", tuple(paths[i:i + BATCH])) for i in range(0, len(paths), BATCH)]


@dataclass(frozen=True)
class LinterSpec:
    name: str
    extensions: frozenset[str]
    executables: tuple[str, ...]
    install_hint: str
    # Files (at the repository root) whose presence enables the linter; `detect` may refine.
    config_files: tuple[str, ...]
    command: Callable[[str, Unit, Target], list[str]]
    parse: Callable[[proc.Result, Unit, Target], list[Finding]]
    detect: Callable[[Path], bool] | None = None
    scope: LinterScope = "file"
    units: Callable[[Path, Sequence[str]], list[Unit]] = file_units
    ok_exit_codes: frozenset[int] = frozenset({0, 1})
    version_args: tuple[str, ...] = ("--version",)
    env: dict[str, str] = field(default_factory=dict)
    # Package/project-scoped tools may report files beyond the changed ones (a change that
    # breaks an untouched file of the same package): keep those findings too.
    beyond_paths: bool = False

    def wants(self, path: str) -> bool:
        return PurePosixPath(path).suffix.lower() in self.extensions


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.+][\w.]+)?")


def parse_version(text: str) -> str | None:
    match = _VERSION.search(text)
    return match.group(0) if match else None


def relpath(root: Path, path: str, cwd: str = ".") -> str | None:
    """Repo-relative POSIX path for a tool-reported path; None when outside the checkout."""
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root / cwd / candidate
    try:
        rel = candidate.resolve().relative_to(root.resolve())
    except ValueError:
        try:  # the checkout itself may be reached through a symlink (e.g. /tmp on macOS)
            rel = Path(candidate).absolute().relative_to(root.absolute())
        except ValueError:
            return None
    return rel.as_posix()


@dataclass(frozen=True)
class LinterAnalyzer:
    """Adapts a `LinterSpec` to the `Analyzer` protocol."""

    spec: LinterSpec

    @property
    def name(self) -> str:
        return self.spec.name

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        configured = any((root / name).is_file() for name in self.spec.config_files)
        if self.spec.detect is not None:
            configured = self.spec.detect(root)
        return configured and any(self.spec.wants(p) for p in changed)

    def resolve(self, root: Path) -> Resolution:
        exe = find_executable(self.spec.executables, root)
        if exe is None:
            return Resolution(None, install_hint=self.spec.install_hint,
                              message=f"{self.spec.executables[0]} not found")
        try:
            result = proc.run([exe, *self.spec.version_args], cwd=root, timeout=60)
        except (proc.MissingBinary, proc.Timeout) as exc:
            return Resolution(None, install_hint=self.spec.install_hint, message=str(exc))
        return Resolution(exe, parse_version(result.out + result.err))

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        assert resolution.executable is not None
        paths = [p for p in target.paths if self.spec.wants(p)]
        findings: list[Finding] = []
        failed: set[str] = set()
        messages: list[str] = []
        status: Literal["ok", "failed", "timeout"] = "ok"
        for unit in self.spec.units(target.root, paths):
            argv = self.spec.command(resolution.executable, unit, target)
            try:
                result = proc.run(argv, cwd=target.root / unit.cwd, timeout=target.timeout,
                                  env=self.spec.env)
            except proc.Timeout as exc:
                status = "timeout"
                failed.update(unit.paths)
                messages.append(f"timed out after {exc.seconds:g}s on {len(unit.paths)} file(s); "
                                "process group killed")
                continue
            if result.returncode not in self.spec.ok_exit_codes:
                status = "failed" if status == "ok" else status
                failed.update(unit.paths)
                messages.append(f"exit {result.returncode}: "
                                f"{result.err_tail() or proc.tail(result.out)}")
                continue
            try:
                findings.extend(self.spec.parse(result, unit, target))
            except (GarbageOutput, ValueError, KeyError, TypeError) as exc:
                status = "failed" if status == "ok" else status
                failed.update(unit.paths)
                messages.append(f"unreadable output ({exc}): {proc.tail(result.out, 3)[:300]}"
                                + (f"\n{result.err_tail(5)}" if result.err.strip() else ""))
        wanted = set(paths)
        kept = tuple(f for f in findings if f.path not in failed
                     and (f.path in wanted or (self.spec.beyond_paths and self.spec.wants(f.path))))
        extra = frozenset(f.path for f in kept) - wanted
        return Outcome(self.name, status, kept, resolution.version, "\n".join(messages),
                       frozenset(failed), extra)
