"""Linters as data: a `LinterSpec` says how to detect, find, run and parse one linter
(`bot.linters.runner` turns any spec into an `Analyzer`), and the helpers adapters share.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Literal

from bot import proc
from bot.analyzer import Target, TreeView
from bot.errors import GarbageOutput
from bot.model import Finding

LinterScope = Literal["file", "package", "crate", "project"]
# The kernel's limit on a command line and its environment together (Linux: a quarter of the
# stack limit, 2 MiB by default): more than this is never assumed, and half of it is used.
ARGV_CEILING = 2 * 1024 * 1024
# Where the system does not say (no sysconf): Windows' 32,767-character command line.
ARGV_FALLBACK = 32_767
# Per argument beyond its bytes: its NUL, its pointer in argv, and a "./" a command may add.
ARGV_OVERHEAD = 16


@dataclass(frozen=True)
class Unit:
    """One invocation: run in `cwd` (relative to the checkout root) over `paths`.

    File-scoped linters get one unit per batch of files; package/crate-scoped ones get one per
    package or crate (`dir`, relative to the root), and its findings are distributed back to
    files by path. `key_files` are the files whose contents decide the unit's result (for the
    cache); empty for file scope, where each path keys itself.
    """

    cwd: str
    paths: tuple[str, ...]
    dir: str = "."
    key_files: tuple[str, ...] = ()


def argv_budget() -> int:
    """Bytes of paths one invocation may take: half the system's argument limit, less the
    environment every tool inherits. The command's own flags fit in the other half."""
    try:
        limit = os.sysconf("SC_ARG_MAX")
    except (AttributeError, ValueError, OSError):
        limit = -1
    limit = min(limit, ARGV_CEILING) if limit > 0 else ARGV_FALLBACK
    environment = sum(len(k) + len(v) + ARGV_OVERHEAD for k, v in os.environ.items())
    return max(limit // 2 - environment, ARGV_FALLBACK // 2)


def argv_cost(path: str) -> int:
    """What one path costs on a command line, in bytes."""
    return len(os.fsencode(path)) + ARGV_OVERHEAD


def file_units(tree: TreeView, paths: Sequence[str]) -> list[Unit]:
    """Consecutive paths in batches as large as the command line allows: one start-up of the
    tool for hundreds of files, where a fixed count would pay a start-up (ESLint's: Node and
    the configuration) per few hundred. A path longer than the budget goes alone."""
    budget = argv_budget()
    units: list[Unit] = []
    batch: list[str] = []
    used = 0
    for path in paths:
        cost = argv_cost(path)
        if batch and used + cost > budget:
            units.append(Unit(".", tuple(batch)))
            batch, used = [], 0
        batch.append(path)
        used += cost
    if batch:
        units.append(Unit(".", tuple(batch)))
    return units


def no_grouping(units: Sequence[Unit]) -> list[list[Unit]]:
    return [[u] for u in units]


@dataclass(frozen=True)
class LinterSpec:
    """What the runner needs to know of one linter: how to find, run and read it."""

    name: str
    extensions: frozenset[str]
    executables: tuple[str, ...]
    install_hint: str
    # Files (at the repository root) whose presence enables the linter; `detect` may refine.
    # They are also what the base checkout takes from the head, and part of the cache key.
    config_files: tuple[str, ...]
    command: Callable[[str, Unit, Target], list[str]]
    # Reads the result as it streams (`Result.lines()`/`stream()`): the runner caps what it
    # keeps, so a parser may yield any number of findings.
    parse: Callable[[proc.Result, Unit, Target], Iterable[Finding]]
    detect: Callable[[Path], bool] | None = None
    # Root files beyond `config_files` that `detect` looks at (clippy: Cargo.toml): what
    # `reviewbot doctor` names as the reason a linter applies.
    markers: tuple[str, ...] = ()
    scope: LinterScope = "file"
    # Finds the units from a view of the revision (disk or git: see bot.revisions.trees), never the disk.
    units: Callable[[TreeView, Sequence[str]], list[Unit]] = file_units
    # Package-scoped tools: which units (all needing a run) share one invocation.
    group: Callable[[Sequence[Unit]], list[list[Unit]]] = no_grouping
    # Rules that, in an invocation over several units, come instead of every unit's findings
    # (golangci-lint's `typecheck`: one package that does not compile, nothing of the others):
    # when one is reported, each unit of that invocation runs again alone.
    alone_after: frozenset[str] = frozenset()
    ok_exit_codes: frozenset[int] = frozenset({0, 1})
    version_args: tuple[str, ...] = ("--version",)
    # False for a proxy that may run another toolchain on every call (rustup's cargo): its
    # version is asked every time instead of remembered per installed binary.
    stable_binary: bool = True
    # Never writes into existing files of the checkout (new cache or build folders are fine;
    # manifests and lock files are never shared, see bot.revisions.linked).
    read_only: bool = True
    # One invocation may take files of both revisions (absolute paths): the tool finds each
    # file's configuration from the file, not from its working folder.
    pairable: bool = False
    # Given the head's checkout: False when its configuration is known to mix the revisions in
    # one run (each is then linted alone from the start; a run found mixed is given up anyway).
    pairs_with: Callable[[Path], bool] | None = None
    # Reads the version without running the tool (an npm package's package.json); None when
    # it cannot, and the tool is asked.
    read_version: Callable[[str], str | None] | None = None
    env: dict[str, str] = field(default_factory=dict)
    # Package/project-scoped tools may report files beyond the changed ones (a change that
    # breaks an untouched file of the same package): keep those findings too.
    beyond_paths: bool = False
    # Adjusts the spec to the resolved version (output flags that changed across majors).
    for_version: Callable[[LinterSpec, str | None], LinterSpec] | None = None
    # After a successful run: findings completed by further runs of the tool (biome: which of
    # its suggestions its own safe fixer applies). Must not raise for the tool's failures.
    refine: Callable[[str, list[Finding], Unit, Target], list[Finding]] | None = None
    # Gitignore-style patterns for the files it checks, beyond `extensions` (Dockerfile,
    # a declared linter's `files:`).
    globs: tuple[str, ...] = ()
    # Part of the cache key beyond name and version: what a declared linter runs and reads.
    identity: str = ""
    # Of the paths it is given, those its configuration in the checkout keeps it from reading
    # (golangci-lint's `run.tests: false`): not failed, but not checked either (Target.checked).
    unread: Callable[[Path, Sequence[str]], frozenset[str]] | None = None
    # False when findings depend on more than the unit's files (a declared repo-wide linter):
    # nothing is cached.
    cacheable: bool = True
    # True for a tool whose run costs less than writing its entries one file each (ruff): its
    # entries are kept in one pack, read once and written once per run (bot.cache).
    cache_packed: bool = False
    # True for a tool whose process can take hundreds of MB (ESLint, golangci-lint, clippy,
    # mypy on a thousand files): its runs start beside another such run only where the job's
    # memory has room for both (bot.linters.memory).
    memory_heavy: bool = False
    # What one run of a heavy tool is taken to need, in bytes: one ESLint or golangci-lint
    # on a 1,000-file change peaked at 310-420 MB (docs/performance.md).
    memory_peak: int = 512 * 2**20

    def wants(self, path: str) -> bool:
        if PurePosixPath(path).suffix.lower() in self.extensions:
            return True
        return bool(self.globs) and _globs(self.globs)(path)


@functools.lru_cache(maxsize=64)
def _globs(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    import pathspec  # here: only declared linters and presets have globs; a plain review skips it

    matches: Callable[[str], bool] = pathspec.PathSpec.from_lines("gitignore", patterns).match_file
    return matches


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.+][\w.]+)?")


def parse_version(text: str) -> str | None:
    match = _VERSION.search(text)
    return match.group(0) if match else None


def version_tuple(version: str | None) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version or "")[:3])


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


def lossy(path: str) -> str:
    """`path` as a tool writing UTF-8 shows a file name that is not UTF-8: each byte it cannot
    decode becomes U+FFFD (names are read with os.fsdecode, those bytes as lone surrogates)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def named_back(findings: Iterable[Finding], unit: Unit) -> Iterator[Finding]:
    """`findings` with a path the tool could only show lossily put back to the file of `unit`
    it stands for (when exactly one reads so): else the finding of a file whose name is not
    UTF-8 would belong to no changed file and be lost, and the gate pass without it."""
    shown: dict[str, list[str]] = {}
    for path in dict.fromkeys((*unit.paths, *unit.key_files)):
        real = str(PurePosixPath(unit.cwd, path)) if unit.cwd != "." else path
        if lossy(real) != real:
            shown.setdefault(lossy(real), []).append(real)
    for finding in findings:
        yield finding if not shown else _renamed(finding, shown)


def _renamed(finding: Finding, shown: dict[str, list[str]]) -> Finding:
    def real(path: str) -> str:
        found = shown.get(path, ())
        return found[0] if len(found) == 1 else path

    fix = finding.fix
    if fix is not None:
        fix = dataclasses.replace(fix, edits=tuple(dataclasses.replace(e, path=real(e.path))
                                                   for e in fix.edits))
    return dataclasses.replace(finding, path=real(finding.path), fix=fix)


def owner(units: Sequence[Unit], path: str) -> Unit | None:
    """The unit whose folder most closely contains `path`."""
    best: Unit | None = None
    for unit in units:
        inside = unit.dir == "." or path.startswith(unit.dir.rstrip("/") + "/")
        if inside and (best is None or len(unit.dir) > len(best.dir) or best.dir == "."):
            best = unit
    return best


def json_lines(result: proc.Result) -> Iterator[Any]:
    """The values of JSON-lines output as it streams, blank lines skipped; a line that is not
    JSON raises GarbageOutput (tools print plain text for usage errors)."""
    for raw in result.lines():
        if not raw.strip():
            continue
        try:
            yield json.loads(raw)
        except json.JSONDecodeError as exc:
            raise GarbageOutput(f"not JSON: {raw[:200]}") from exc


def json_events(stream: BinaryIO) -> Iterator[tuple[str, str, Any]]:
    """ijson's (prefix, event, value) events of a JSON document, read incrementally; output
    that is not JSON raises GarbageOutput."""
    import ijson  # type: ignore[import-untyped]  # here: only JSON-document parsers need it

    try:
        yield from ijson.parse(stream, use_float=True)
    except ijson.JSONError as exc:
        raise GarbageOutput(f"not JSON: {exc}") from exc


def build(events: Iterator[tuple[str, str, Any]], event: str, value: Any) -> Any:
    """The JSON value that starts with (`event`, `value`), taking its events from `events`."""
    from ijson.common import ObjectBuilder  # type: ignore[import-untyped]

    builder = ObjectBuilder()
    builder.event(event, value)
    depth = 1 if event in ("start_map", "start_array") else 0
    while depth:
        _, event, value = next(events)
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
    return builder.value
