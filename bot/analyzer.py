"""The contract every tool satisfies (linters and language servers alike).

The pipeline asks each registered analyzer whether it applies to the head checkout, resolves
its binary, then asks it to collect findings for a `Target` (one revision's checkout and the
changed paths there). Linters implement it through `bot.linters.base.LinterSpec`, language
servers through `bot.lsp`, the repository's rules through `bot.structural.analyzer`.
`reviewbot doctor` asks each the same way why it applies to a repository or not (`survey`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from bot.model import Finding, ToolStatus


class TreeView(Protocol):
    """One revision's files, in a checkout or straight from git (`bot.revisions.trees`): what cache keys
    and tool units are computed from. Paths are repo-relative POSIX; a leading "./" is allowed."""

    def is_file(self, path: str) -> bool: ...

    def blobs(self, paths: Sequence[str]) -> Mapping[str, str]:
        """The git blob id of each of `paths` that is a file; the others are left out."""
        ...

    def walk(self, top: str, suffixes: frozenset[str], names: frozenset[str] = frozenset(),
             stop: str | None = None) -> list[str]:
        """Files under `top` with one of `suffixes` or `names`, sorted, skipping hidden and tool
        folders and subfolders that hold a file named `stop` (a nested module)."""
        ...


@dataclass(frozen=True)
class Target:
    """One revision to analyse.

    `root` is a checkout of the revision (a worktree, or the repository itself for the head when
    it is checked out and clean). `paths` are the changed files that exist at this revision,
    repo-relative POSIX. The base checkout already carries the head's configuration files.
    """

    root: Path
    rev: str
    paths: tuple[str, ...]
    side: str  # "base" or "head"
    timeout: float = 300.0
    cache_dir: Path | None = None  # findings cache, when enabled
    # Head-only knowledge some tools need at both revisions: the repository the worktrees
    # belong to, and every path the change touched at either revision, sorted (a language
    # server checks the importers of a module the head deleted or renamed too).
    repo: Path | None = None
    changed: tuple[str, ...] = ()
    # The base checkout is made on first need: analyzers that can answer from the cache
    # (keys from `view`, no files read) call `ready()` only before reading under `root`.
    # For every other analyzer the pipeline makes the checkout beforehand.
    prepare: Callable[[], object] | None = None
    view: TreeView | None = None
    # The paths of this revision each tool run before this one in the review checked (status
    # ok, not among its failed paths), by tool name: a language server skips what a linter
    # that type-checks already covered (gopls after golangci-lint, rust-analyzer after clippy).
    checked: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # What the user's checkout has installed, which the tools load at every revision
    # (bot.revisions.deps.stamp): part of every cached answer's key.
    installed: str = ""
    # The base's findings are wanted for their own sake (listed as fixed: a sweep closes what
    # was fixed), not only to classify the head's: a language server may otherwise leave the
    # base out when the head has no finding (bot.lsp.analyzer).
    fixed: bool = True

    def ready(self) -> Path:
        """`root`, made if it was not yet."""
        if self.prepare is not None:
            self.prepare()
        return self.root


@dataclass(frozen=True)
class Outcome:
    """What one analyzer produced for one Target."""

    tool: str
    status: ToolStatus
    findings: tuple[Finding, ...] = ()
    version: str | None = None
    message: str = ""  # for failed/timeout: what happened and the stderr tail
    # Paths whose results are unusable (the tool crashed on them, or could not parse them):
    # the classifier gives their findings no baseline instead of guessing.
    failed_paths: frozenset[str] = frozenset()
    # Extra paths (beyond Target.paths) the tool analysed, e.g. importers of changed modules.
    extra_paths: frozenset[str] = frozenset()
    # What it left out on purpose and why, shown on its row when it ran well.
    note: str = ""
    # Paths it was given but did not read, as configured (not failed: its findings on them,
    # none, are what the repository asked for); no tool may count them as checked.
    unread_paths: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Resolution:
    """Where the analyzer's binary is, or why it is not available."""

    executable: str | None
    version: str | None = None
    install_hint: str = ""
    message: str = ""


ToolKind = Literal["linter", "language server", "rules"]


@dataclass(frozen=True)
class Survey:
    """What a tool makes of one repository without running: for `reviewbot doctor`, which
    tells from it why the tool applies or not and how to make it run (bot.doctor.report)."""

    kind: ToolKind
    markers: tuple[str, ...]  # the repo-relative files that enable it, found
    candidates: tuple[str, ...]  # the files that could have (for "none of ...")
    suffixes: tuple[str, ...]  # the file kinds it checks
    files: int  # tracked files of those kinds
    version: str | None = None  # the resolved binary's, or read from what installed it
    install_hint: str = ""
    declined: str = ""  # why the markers found do not enable it after all
    origin: str | None = None  # where it runs from when that is no file found on disk


class Analyzer(Protocol):
    """A tool the review can run: a linter, a language server or the repository's rules.

    `name`, `applies`, `resolve` and `collect` have no default. The other members are what the
    pipeline may ask beyond them, with the answer that is safe for any tool: an implementer
    inherits from this class to take those defaults and overrides only what differs.
    """

    @property
    def name(self) -> str: ...

    @property
    def config_files(self) -> tuple[str, ...]:
        """Root-level files the base checkout takes from the head, so that both revisions are
        checked with the head's configuration."""
        return ()

    @property
    def read_only(self) -> bool:
        """It never writes into the files of the checkout it runs on, so the base may share
        the head's files (see bot.revisions.linked). A tool that might write must say False."""
        return False

    @property
    def lazy_checkout(self) -> bool:
        """It calls `Target.ready()` before reading under the root, so the pipeline may hand it
        a base checkout that is made only when something misses the cache."""
        return False

    @property
    def file_scoped(self) -> bool:
        """It reads each file it is given on its own (with the configuration above it and, at
        most, its neighbours), never a project as a whole, and it is `read_only` and
        `lazy_checkout`: its base may be the changed files' folders alone (bot.revisions.partial)."""
        return False

    @property
    def defers_to(self) -> tuple[str, ...]:
        """Tools whose checked files (`Target.checked`) change what this one checks: a shard
        runs it together with all their work (bot.run.shards)."""
        return ()

    def shares(self, view: TreeView, paths: Sequence[str]) -> list[tuple[str, ...]]:
        """`paths` (changed, repo-relative, at the head) in groups whose findings can be
        computed apart from each other's: what shards divide (bot.run.shards). The default, one
        group, suits a tool that must see the whole change (a language server's projects)."""
        return [tuple(paths)] if paths else []

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        """Its config/root marker exists in the head checkout and some changed path is its kind."""
        ...

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        """Find the binary (repo-local first, then PATH, then the bot's tools folder); with a
        cache folder, its version may be remembered there per installed binary."""
        ...

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        """Run on `target` and return its findings, paths repo-relative to `target.root`."""
        ...

    def collect_pair(self, base: Target, head: Target,
                     resolution: Resolution) -> tuple[Outcome, Outcome] | None:
        """Both revisions in one run, (base, head); None when this tool cannot here, and the
        pipeline then calls `collect` once per revision."""
        return None

    def survey(self, root: Path, files: Sequence[str], resolution: Resolution) -> Survey:
        """What it makes of the checkout `root`, whose tracked files are `files`, with its
        binary resolved as `resolution`. The default knows only `applies`: a tool that can say
        which files enable it and which it checks says so."""
        applies = self.applies(root, files)
        return Survey("linter", ("its own detection",) if applies else (), ("a marker",), (),
                      len(files) if applies else 0, resolution.version, resolution.install_hint)
