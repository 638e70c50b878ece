"""A linter the repository declares in `.reviewbot.yml` (`tools: {NAME: {command, files,
format, scope, fix}}`) as a `LinterSpec`: it then runs at the merge base and the head like the
built-in ones, with the same verdicts, cache, timeouts, bisection of crashes and caps.

The command comes from the head's settings, like every linter's own configuration: running
the repository's linters runs the repository's code anyway. A program named by a path (with a
"/") is the head's file of that path, run on both revisions.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot import proc
from bot.analyzer import Analyzer, Resolution, Target, TreeView
from bot.config import FILE_NAMES, FILES_PLACEHOLDER, Declared
from bot.linters.base import LinterSpec, Unit, file_units
from bot.linters.formats import Context, reader
from bot.linters.runner import LinterAnalyzer
from bot.model import Finding
from bot.toolpath import find_executable


def _command(declared: Declared) -> Callable[[str, Unit, Target], list[str]]:
    def command(exe: str, unit: Unit, target: Target) -> list[str]:
        # A file named like an option ("-x.sh") is passed as "./-x.sh": a tool we know nothing
        # of may not take "--".
        paths = [f"./{p}" if p.startswith("-") else p for p in unit.paths]
        argv = [exe]
        for arg in declared.command[1:]:
            argv += paths if arg == FILES_PLACEHOLDER else [arg]
        if declared.scope == "file" and FILES_PLACEHOLDER not in declared.command:
            argv += paths
        return argv

    return command


def _parse(declared: Declared) -> Callable[[proc.Result, Unit, Target], Iterable[Finding]]:
    read = reader(declared.format)

    def parse(result: proc.Result, unit: Unit, target: Target) -> Iterable[Finding]:
        ctx = Context(declared.name, target.root, unit.cwd, declared.fix, declared.pattern)
        return read(result, ctx)

    return parse


def _whole_repo(tree: TreeView, paths: Sequence[str]) -> list[Unit]:
    return [Unit(".", tuple(paths))] if paths else []


def spec(declared: Declared) -> LinterSpec:
    program = declared.command[0]
    identity = json.dumps([declared.command, declared.files, declared.format, declared.scope,
                           declared.fix, declared.pattern, sorted(declared.exit_codes)])
    return LinterSpec(
        name=declared.name,
        extensions=frozenset(),
        globs=declared.files,
        executables=(program,),
        # No command installs a program only the repository knows: the message says what to do.
        install_hint="",
        config_files=(),
        markers=FILE_NAMES,  # what `reviewbot doctor` names as the reason it applies
        detect=lambda root: True,  # declared is configured
        command=_command(declared),
        parse=_parse(declared),
        scope="file" if declared.scope == "file" else "project",
        units=_whole_repo if declared.scope == "repo" else file_units,
        identity=identity,
        # A repo-wide run's findings in a file depend on every other file: not cached.
        cacheable=declared.scope == "file",
        read_only=False,  # nothing says what an unknown tool writes
        ok_exit_codes=frozenset(declared.exit_codes),
    )


def _digest(path: str) -> str | None:
    hasher = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                hasher.update(block)
    except OSError:
        return None
    return "sha256:" + hasher.hexdigest()[:12]


@dataclass(frozen=True)
class DeclaredAnalyzer(LinterAnalyzer):
    """A declared linter: its program is a repository file (by path) or found like the
    built-in ones; one that cannot say its version is known by its contents' digest."""

    @property
    def _remedy(self) -> str:
        return f"or correct tools.{self.spec.name}.command in .reviewbot.yml"

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        program = self.spec.executables[0]
        if "/" in program:
            path = Path(program) if Path(program).is_absolute() else root / program
            if not (path.is_file() and os.access(path, os.X_OK)):
                return Resolution(None, message=f"{program} is not an executable file of the "
                                                f"repository: {self._remedy}")
            return Resolution(str(path), _digest(str(path)))
        exe = find_executable((program,), root)
        if exe is None:
            return Resolution(None, message=f"{program} not found: install it, {self._remedy}")
        resolution = super().resolve(root, cache_dir)
        # No usable --version: it still runs, known by its contents.
        return resolution if resolution.executable else Resolution(exe, _digest(exe))


def analyzers(declared: Iterable[Declared]) -> Mapping[str, Analyzer]:
    return {d.name: DeclaredAnalyzer(spec(d)) for d in declared}
