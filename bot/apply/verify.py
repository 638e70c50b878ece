"""Apply a plan in memory to the head's blobs and check every result before anything is
committed: all or nothing.

A rewritten file must still parse: with tree-sitter for the languages the structural engine
knows (no syntax error where the head had none, never more errors than the head had), with
the standard parsers for JSON, TOML and YAML. Any other file (a linter's fix in a language we
have no parser for) is checked to be UTF-8 text only, trusting the linter that parsed it to
make the fix; `Verified.unchecked` names those files.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import tree_sitter as ts

from bot import git
from bot.apply.plan import WORKFLOWS, Plan, workflow_files
from bot.apply.sources import REGULAR
from bot.errors import EditConflict
from bot.model import Edit
from bot.positions import apply_span_edits, split_lines
from bot.structural.lang import for_path, parse


@dataclass(frozen=True)
class Verified:
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # path: (mode, new bytes)
    problems: tuple[str, ...] = ()  # "path: why", one per file that cannot be committed
    unchecked: tuple[str, ...] = ()  # files only checked to be text (no parser for them)

    @property
    def ok(self) -> bool:
        return not self.problems


def apply_edits(text: str, edits: list[Edit]) -> str | None:
    """`text` with `edits` applied, or None when two of them overlap."""
    try:
        return apply_span_edits(text, edits)
    except EditConflict:
        return None


def _errors(root: ts.Node) -> tuple[int, int | None]:
    """(error and missing nodes, 1-based line of the first)."""
    count, first, stack = 0, None, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
            line = node.start_point[0] + 1
            first = line if first is None else min(first, line)
        if node.has_error:
            stack.extend(node.children)
    return count, first


def _structured(suffix: str) -> Callable[[str], object] | None:
    if suffix == ".json":
        return json.loads
    if suffix == ".toml":
        return tomllib.loads
    if suffix in (".yaml", ".yml"):
        import yaml  # only when a YAML file is fixed

        return yaml.safe_load
    return None


def parse_problem(path: str, old: str, new: str) -> str | None:
    """Why `new` (the rewritten `old`) does not parse; "" when it does; None when there is no
    parser for `path`."""
    lang = for_path(path)
    if lang is not None:
        before, _ = _errors(parse(lang.grammar, old.encode("utf-8")).root_node)
        after, line = _errors(parse(lang.grammar, new.encode("utf-8")).root_node)
        if after and (before == 0 or after > before):
            return f"the rewritten file does not parse as {lang.name} (syntax error at line {line})"
        return ""
    loads = _structured(PurePosixPath(path).suffix.lower())
    if loads is None:
        return None
    try:
        loads(old)
    except Exception:  # the head's file was already broken: nothing to compare with
        return ""
    try:
        loads(new)
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"the rewritten file no longer parses ({first})"
    return ""


def verify(checkout: Path, plan: Plan) -> Verified:
    """The new contents of every file of `plan`, or the problems that refuse it."""
    problems = [f"{p}: files under {WORKFLOWS} are never changed by the bot" for p in workflow_files(plan)]
    modes = git.tree_blobs(checkout, plan.head, list(plan.files))
    blobs = git.cat_blobs(checkout, [f"{plan.head}:{p}" for p in plan.files])
    out: dict[str, tuple[str, bytes]] = {}
    unchecked: list[str] = []
    for path, blob in zip(plan.files, blobs, strict=True):
        mode = modes.get(path, "").split(" ")[0]
        if blob is None or mode not in REGULAR:
            problems.append(f"{path}: not a regular file at {plan.head[:12]}")
            continue
        try:
            old = blob.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{path}: not UTF-8 text at {plan.head[:12]}")
            continue
        new = apply_edits(old, [e for e in plan.edits if e.path == path])
        if new is None:
            problems.append(f"{path}: the plan's edits overlap")
            continue
        why = parse_problem(path, old, new)
        if why:
            problems.append(f"{path}: {why}")
            continue
        if why is None:
            unchecked.append(path)
        if new != old:
            out[path] = (mode, new.encode("utf-8"))
    return Verified(out, tuple(problems), tuple(unchecked))


def preview(checkout: Path, plan: Plan, checked: Verified, max_lines: int = 200) -> str:
    """A unified diff of what `plan` changes (for the `/ast-edit` reply), cut after
    `max_lines` lines with a line saying how many were left out."""
    olds = git.cat_blobs(checkout, [f"{plan.head}:{p}" for p in sorted(checked.files)])
    out: list[str] = []
    for path, old in zip(sorted(checked.files), olds, strict=True):
        before = split_lines((old or b"").decode("utf-8", "replace"))
        after = split_lines(checked.files[path][1].decode("utf-8"))
        for line in difflib.unified_diff(before, after, f"a/{path}", f"b/{path}"):
            out.append(line if line.endswith("\n") else line + "\n")
            if not line.endswith("\n"):
                out.append("\\ No newline at end of file\n")
    if len(out) > max_lines:
        out = [*out[:max_lines], f"... {len(out) - max_lines} more diff lines\n"]
    return "".join(out)
