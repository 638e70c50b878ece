"""Shards: a deterministic partition of one review's work over N jobs (a CI matrix).

The work is each tool's groups of changed files (`Analyzer.shares`): a file-scoped linter's
files one by one, a package- or crate-scoped linter's packages, a language server's change
whole, and a tool together with the tools it defers to (`Analyzer.defers_to`). Each group
goes to one shard, with its base and its head, so every finding is computed by exactly one
shard. Groups are balanced by bytes (largest first, each to the lightest shard; ties to the
lowest index), from nothing but the change itself: every shard computes the same plan, and
`plan_id` fingerprints it so that a publisher can refuse parts of different plans. `plan`
makes both for one review, from its tools and its change.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import BotError, Exit
from bot.revisions.trees import DiskView

if TYPE_CHECKING:
    from bot.analyzer import Analyzer
    from bot.revisions.workspace import Changes

MAX_SHARDS = 256  # GitHub's matrix takes 256 jobs; GitLab's `parallel:` 200
_SPEC = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse(text: str) -> Shard:
    """`I/N` as given to --shard; BotError (exit 2) saying what is wrong."""
    found = _SPEC.fullmatch(text.strip())
    if found is None:
        raise BotError(f"--shard {text!r}: expected I/N, such as 1/3 (shard 1 of 3)", Exit.USAGE)
    shard = Shard(int(found.group(1)), int(found.group(2)))
    if shard.count > MAX_SHARDS:
        raise BotError(f"--shard {text}: at most {MAX_SHARDS} shards", Exit.USAGE)
    if shard.index > shard.count:
        raise BotError(f"--shard {text}: the index must be from 1 to {shard.count}", Exit.USAGE)
    return shard


@dataclass(frozen=True)
class Group:
    """Files of the change that one shard checks with some tools."""

    tools: tuple[str, ...]
    paths: tuple[str, ...]
    size: int


def groups(shares: Mapping[str, Sequence[Sequence[str]]], defers: Mapping[str, Sequence[str]],
           sizes: Mapping[str, int]) -> list[Group]:
    """Each tool's shares as groups, a tool that defers to others joined with all of their
    shares (it reads what they checked of the same files)."""
    parent = {name: name for name in shares}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for name in sorted(shares):
        for other in defers.get(name, ()):
            if other in parent:
                parent[root(other)] = root(name)
    joined: dict[str, list[str]] = {}
    for name in sorted(shares):
        joined.setdefault(root(name), []).append(name)
    out = []
    for members in joined.values():
        if len(members) == 1:
            out += [Group((members[0],), paths, sum(sizes.get(p, 0) for p in paths))
                    for paths in disjoint(shares[members[0]])]
            continue
        paths = tuple(sorted({p for m in members for share in shares[m] for p in share}))
        if paths:
            out.append(Group(tuple(members), paths, sum(sizes.get(p, 0) for p in paths)))
    return out


def disjoint(shares: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    """`shares` with those that have a path in common joined (a renamed file's base and head
    paths name one file pair), each sorted, empty ones left out."""
    owner: dict[str, int] = {}
    merged: list[set[str] | None] = []
    for share in shares:
        mine = set(share)
        for index in sorted({owner[p] for p in share if p in owner}):
            other = merged[index]
            assert other is not None
            mine |= other
            merged[index] = None
        for path in mine:
            owner[path] = len(merged)
        merged.append(mine)
    return [tuple(sorted(m)) for m in merged if m]


def assign(work: Sequence[Group], count: int) -> list[list[Group]]:
    """The groups of each shard: largest first, each to the lightest shard."""
    loads = [0] * count
    shards: list[list[Group]] = [[] for _ in range(count)]
    for group in sorted(work, key=lambda g: (-g.size, g.tools, g.paths)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        shards[lightest].append(group)
        loads[lightest] += group.size
    return shards


def mine(plan: Sequence[Sequence[Group]], shard: Shard) -> dict[str, frozenset[str]]:
    """The files each tool checks in `shard`."""
    out: dict[str, set[str]] = {}
    for group in plan[shard.index - 1]:
        for tool in group.tools:
            out.setdefault(tool, set()).update(group.paths)
    return {tool: frozenset(paths) for tool, paths in out.items()}


def plan_id(plan: Sequence[Sequence[Group]], settings: object) -> str:
    """A fingerprint of the plan and of what else decides each shard's findings (`settings`:
    tools chosen, timeouts, configuration): equal in every shard of one analysis."""
    doc = json.dumps([[[g.tools, g.paths] for g in shard] for shard in plan] + [settings],
                     sort_keys=True, default=str)
    return hashlib.sha256(doc.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def plan(shard: Shard, applicable: Sequence[Analyzer], changes: Changes, head_root: Path, *,
         only: Sequence[str] | None, timeout: float | None, config: Path | None
         ) -> tuple[dict[str, frozenset[str]], str]:
    """The files each of the review's tools checks in `shard`, and the plan's id, which also
    holds what was asked (`only`, `timeout`, the `config` file's contents) and the bot's
    version: they decide each shard's findings too."""
    settings = [shard.count, sorted(only or ()), timeout, [a.name for a in applicable],
                _digest(config), _bot_version()]
    # A file pair goes to one shard whole: under its head path (its base path if deleted). The
    # tools are asked about both paths, so a file renamed to a name no tool takes still has
    # its base checked (its findings there are fixed).
    evidence = changes.evidence
    key_of = evidence.reverse()
    view = DiskView(head_root)
    shares = {a.name: [tuple(dict.fromkeys(key_of.get(p, p) for p in share))
                       for share in a.shares(view, changes.paths())] for a in applicable}
    work = assign(groups(shares, {a.name: a.defers_to for a in applicable}, evidence.sizes()),
                  shard.count)
    return mine(work, shard), plan_id(work, settings)


def _digest(path: Path | None) -> str:
    """What a --config file holds (one outside the repository may differ between jobs)."""
    if path is None:
        return ""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _bot_version() -> str:
    # Imported here: only a sharded analysis asks, and the import costs more than the rest.
    import importlib.metadata

    try:
        return importlib.metadata.version("reviewbot")
    except importlib.metadata.PackageNotFoundError:
        return ""
