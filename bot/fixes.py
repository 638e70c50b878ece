"""`review --fix`: apply the linters' own fixes to the working tree, then re-lint.

The core is pure: `apply_fixes` puts a list of `Fix` into one file's text, all edits of a fix
or none, dropping fixes that overlap one already taken. The edge writes files: only inside the
repository, only regular files, never a file with uncommitted changes unless forced (and then
only fixes whose lines are unchanged), atomically, keeping line endings.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot import atomic, git
from bot.errors import EditConflict
from bot.model import Applicability, Fix, ReviewResult, Span
from bot.positions import (
    LineIndex,
    TextEdit,
    apply_edits,
    check_edits,
    span_edits,
    split_lines,
)

# --- pure core -------------------------------------------------------------------------------

def apply_fixes(text: str, fixes: Sequence[Fix]) -> tuple[str, list[Fix], list[Fix]]:
    """(new text, fixes applied, fixes skipped because they overlap an earlier one).

    Fixes are taken in order of their first edit, so the result does not depend on the order
    the linters reported them; identical edits from two findings are applied once.
    """
    index = LineIndex(text)
    ordered = sorted(fixes, key=lambda f: (min((e.span for e in f.edits), default=Span(0, 0, 0, 0)),
                                           f.description))
    taken: list[TextEdit[str]] = []
    applied: list[Fix] = []
    skipped: list[Fix] = []
    for fix in ordered:
        edits = [e for e in span_edits(index, fix.edits) if e not in taken]
        try:
            check_edits([*edits, *taken], len(text))
        except EditConflict:
            skipped.append(fix)
            continue
        taken += edits
        applied.append(fix)
    return apply_edits(text, taken), applied, skipped


def _changed_blocks(old: str, new: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """(first line, end line, replacement lines) of every block of lines that differs."""
    a, b = split_lines(old), split_lines(new)
    return [(i1, i2, tuple(b[j1:j2])) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, a, b, autojunk=False).get_opcodes() if tag != "equal"]


def shown_in(text: str, rewritten: str, fixes: Sequence[Fix]) -> set[int]:
    """Indexes of the `fixes` (edits of `text`) that a tool's own fixer applied when it turned
    `text` into `rewritten`: each block of lines a fix changes must read the same there.
    Fixes that only make sense together in one block count when all of them applied give
    `rewritten` exactly; anything less certain is left out."""
    wanted = set(_changed_blocks(text, rewritten))
    shown = set()
    for index, fix in enumerate(fixes):
        fixed, applied, _ = apply_fixes(text, [fix])
        blocks = _changed_blocks(text, fixed)
        if applied and blocks and set(blocks) <= wanted:
            shown.add(index)
    if len(shown) < len(fixes) and apply_fixes(text, fixes)[0] == rewritten:
        shown = set(range(len(fixes)))
    return shown


def line_changes(old: str, new: str) -> tuple[int, int]:
    """(lines added, lines removed) between two texts."""
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, split_lines(old), split_lines(new), autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


def select_fixes(result: ReviewResult, unsafe: bool = False) -> list[Fix]:
    """The fixes of introduced and changed findings: safe ones, unsafe ones too on request;
    display-only ones never. Each fix once, even when two findings share it."""
    least = Applicability.UNSAFE if unsafe else Applicability.SAFE
    picked = [v.finding.fix for v in result.findings
              if v.scope.fixable and v.finding.fix is not None
              and v.finding.fix.applicability.applies(least) and v.finding.fix.edits]
    return list(dict.fromkeys(f for f in picked if f is not None))


def by_file(fixes: Iterable[Fix]) -> dict[str, list[Fix]]:
    """Fixes grouped by the file they edit; a fix that edits two files is not applied (it
    could only be half-applied if one of them is refused)."""
    out: dict[str, list[Fix]] = {}
    for fix in fixes:
        paths = {e.path for e in fix.edits}
        if len(paths) == 1:
            out.setdefault(paths.pop(), []).append(fix)
    return out


def unchanged_lines(head: str, work: str, fix: Fix) -> bool:
    """True when every line the fix touches reads the same in both texts."""
    a, b = split_lines(head), split_lines(work)
    for edit in fix.edits:
        first, last = edit.span.line, max(edit.span.end_line, edit.span.line)
        if a[first - 1:last] != b[first - 1:last]:
            return False
    return True


# --- edge: the working tree ------------------------------------------------------------------

@dataclass(frozen=True)
class FileResult:
    path: str
    added: int = 0
    removed: int = 0
    applied: int = 0
    skipped: int = 0
    refused: str = ""  # why nothing was written


@dataclass(frozen=True)
class FixReport:
    files: tuple[FileResult, ...]
    remaining: ReviewResult | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def changed(self) -> tuple[FileResult, ...]:
        return tuple(f for f in self.files if f.applied and not f.refused)


def inside(repo: Path, path: str) -> Path | None:
    """The file `path` names inside `repo`, or None when it would leave it (`..`, absolute,
    a symlink out, or not a regular file)."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        return None
    candidate = repo / pure
    try:
        resolved = candidate.resolve(strict=True)
        resolved.relative_to(repo.resolve())
    except (OSError, ValueError):
        return None
    if candidate.is_symlink() or not resolved.is_file() or ".git" in pure.parts:
        return None
    return candidate


def apply_to_tree(repo: Path, head: str, fixes: Sequence[Fix], force: bool = False) -> list[FileResult]:
    """Apply `fixes` (computed on the texts at `head`) to the working tree of `repo`."""
    out = []
    for path, file_fixes in sorted(by_file(fixes).items()):
        where = inside(repo, path)
        if where is None:
            out.append(FileResult(path, refused="outside the repository or not a regular file"))
            continue
        blob = git.show(repo, head, path)
        if blob is None:
            out.append(FileResult(path, refused=f"not in the reviewed revision {git.short(head)}"))
            continue
        work_bytes = where.read_bytes()
        try:
            head_text, work_text = blob.decode("utf-8"), work_bytes.decode("utf-8")
        except UnicodeDecodeError:
            out.append(FileResult(path, refused="not UTF-8"))
            continue
        dirty = work_bytes != blob
        if dirty and not force:
            out.append(FileResult(path, refused="has changes not in the reviewed revision "
                                                "(commit or stash them, or pass --force)"))
            continue
        usable = [f for f in file_fixes if not dirty or unchanged_lines(head_text, work_text, f)]
        new_text, applied, skipped = apply_fixes(work_text, usable)
        skipped_count = len(skipped) + len(file_fixes) - len(usable)
        if new_text != work_text:
            atomic.write(where, new_text.encode("utf-8"))
        added, removed = line_changes(work_text, new_text)
        out.append(FileResult(path, added, removed, len(applied), skipped_count))
    return out


def snapshot(repo: Path) -> str | None:
    """A commit of the working tree's tracked files that moves nothing (no branch, no
    stash entry): what the re-lint reviews. None when the tree is clean."""
    return git.stash_create(repo, "reviewbot --fix")


def fix_and_relint(repo: Path, result: ReviewResult, relint: Callable[[str], ReviewResult],
                   unsafe: bool = False, force: bool = False) -> FixReport:
    """Apply the selected fixes, then review the working tree again (`relint(head_rev)`)."""
    top = git.toplevel(repo)
    files = apply_to_tree(top, result.head, select_fixes(result, unsafe), force)
    if not any(f.applied for f in files):
        return FixReport(tuple(files), None, ("nothing was changed",))
    head = snapshot(top) or result.head
    return FixReport(tuple(files), relint(head))


def render(report: FixReport) -> str:
    lines = []
    for f in report.files:
        if f.refused:
            lines.append(f"  {f.path}: not fixed: {f.refused}")
        elif f.applied:
            extra = f" ({f.skipped} overlapping fix(es) left for a second run)" if f.skipped else ""
            lines.append(f"  {f.path}: +{f.added} -{f.removed}, {f.applied} fix(es){extra}")
    header = f"fixed {len(report.changed)} file(s)" if report.changed else "no fixes applied"
    body = [header + ":" if lines else header, *lines, *(f"  {n}" for n in report.notes)]
    if report.remaining is not None:
        left = sum(1 for v in report.remaining.findings if v.scope.fixable)
        body.append(f"after fixing: {left} introduced/changed finding(s) remain")
    return "\n".join(body) + "\n"
