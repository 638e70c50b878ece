"""The one diff parser, and per-file line maps between two revisions (pure functions).

Input is git's unified patch (`git diff -U0 --histogram -M50%`); output is one `FilePatch` per
file and, given both texts, a `LineMap` that says for every head line whether it is unchanged,
changed only in whitespace, modified or added, and which base line it continues.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from bot.model import FileStatus

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Hunk:
    """One hunk of a unified diff: its ranges and lines at both sides."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    old_lines: tuple[str, ...] = ()
    new_lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class FilePatch:
    """One file of a diff: its paths at both sides, its status and hunks."""

    old_path: str | None  # None for an added file
    new_path: str | None  # None for a deleted file
    status: FileStatus
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    similarity: int | None = None
    symlink: bool = False  # the head side (or the base side of a deletion) is a symbolic link
    submodule: bool = False  # a gitlink: the commit of another repository, not a file

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def unquote_path(raw: bytes) -> str:
    """Undo git's C-style quoting of unusual path names ("a/t\\303\\251st")."""
    text = raw.decode("utf-8", "surrogateescape")
    if not (text.startswith('"') and text.endswith('"')):
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(char.encode("utf-8", "surrogateescape"))
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _strip_prefix(path: str, prefix: str) -> str:
    return path[len(prefix):] if path.startswith(prefix) else path


def _header_path(line: bytes, prefix: str) -> str | None:
    raw = line[4:].rstrip(b"\n")
    if raw.endswith(b"\t"):  # git appends a tab when the name holds a space
        raw = raw[:-1]
    if raw == b"/dev/null":
        return None
    return _strip_prefix(unquote_path(raw), prefix)


def _split_files(patch: bytes) -> Iterator[list[bytes]]:
    block: list[bytes] = []
    for line in patch.splitlines(keepends=True):
        if line.startswith(b"diff --git ") and block:
            yield block
            block = []
        block.append(line)
    if block:
        yield block


def _diff_git_paths(header: bytes) -> tuple[str, str]:
    """Paths from `diff --git a/X b/Y` when no ---/+++ lines exist (mode or pure rename)."""
    rest = header[len(b"diff --git "):].rstrip(b"\n")
    if rest.startswith(b'"'):
        end = rest.index(b'" ', 1) + 1
        return (_strip_prefix(unquote_path(rest[:end]), "a/"),
                _strip_prefix(unquote_path(rest[end + 1:]), "b/"))
    half = (len(rest) - 1) // 2  # "a/X b/X": equal names split in the middle
    return _strip_prefix(unquote_path(rest[:half]), "a/"), _strip_prefix(unquote_path(rest[half + 1:]), "b/")


def _parse_file(block: list[bytes]) -> FilePatch:
    first = next((i for i in range(1, len(block)) if _HUNK.match(block[i])), len(block))
    return replace(_header(block[:first]), hunks=_hunks(block[first:]))


_MODE_LINES = (b"new file mode", b"deleted file mode", b"new mode", b"index ")


def _header(block: list[bytes]) -> FilePatch:
    """A file's patch as its header lines (`diff --git` up to its first hunk) describe it."""
    old_path, new_path = _diff_git_paths(block[0])
    status: FileStatus = "modified"
    similarity: int | None = None
    binary = symlink = submodule = False
    for line in block[1:]:
        mode = line.rstrip(b"\n")
        symlink = symlink or (mode.endswith(b" 120000") and line.startswith(_MODE_LINES))
        submodule = submodule or (mode.endswith(b" 160000") and line.startswith(_MODE_LINES))
        if line.startswith(b"new file mode"):
            status = "added"
        elif line.startswith(b"deleted file mode"):
            status = "deleted"
        elif line.startswith(b"rename from "):
            status, old_path = "renamed", unquote_path(line[12:].rstrip(b"\n"))
        elif line.startswith(b"rename to "):
            new_path = unquote_path(line[10:].rstrip(b"\n"))
        elif line.startswith(b"copy from "):
            status, old_path = "copied", unquote_path(line[10:].rstrip(b"\n"))
        elif line.startswith(b"copy to "):
            new_path = unquote_path(line[8:].rstrip(b"\n"))
        elif line.startswith(b"similarity index "):
            similarity = int(line[17:].strip().rstrip(b"%"))
        elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
            binary = True
        elif line.startswith(b"--- "):
            old_path = _header_path(line, "a/") or old_path
        elif line.startswith(b"+++ "):
            new_path = _header_path(line, "b/") or new_path
    return FilePatch(None if status == "added" else old_path,
                     None if status == "deleted" else new_path,
                     status, (), binary, similarity, symlink, submodule)


def _hunks(lines: list[bytes]) -> tuple[Hunk, ...]:
    """The hunks of a file's patch, from its first `@@` line on."""
    hunks: list[Hunk] = []
    current: tuple[int, int, int, int] | None = None
    olds: list[str] = []
    news: list[str] = []
    for line in lines:
        match = _HUNK.match(line)
        if match:
            if current is not None:
                hunks.append(Hunk(*current, tuple(olds), tuple(news)))
            os_, oc, ns, nc = match.groups()
            current = (int(os_), int(oc) if oc is not None else 1,
                       int(ns), int(nc) if nc is not None else 1)
            olds, news = [], []
        elif current is not None:
            text = line.decode("utf-8", "replace").rstrip("\n")
            if line.startswith(b"-"):
                olds.append(text[1:])
            elif line.startswith(b"+"):
                news.append(text[1:])
    if current is not None:
        hunks.append(Hunk(*current, tuple(olds), tuple(news)))
    return tuple(hunks)


def parse_patch(patch: bytes) -> list[FilePatch]:
    return [_parse_file(block) for block in _split_files(patch) if block[0].startswith(b"diff --git ")]


# --- line maps -------------------------------------------------------------------------------

UNCHANGED, WS_CHANGED, MODIFIED, ADDED = "unchanged", "ws_changed", "modified", "added"

_SUPPRESSION = re.compile(
    r"(#\s*(noqa|type:\s*ignore|pyright:\s*ignore|pylint:\s*disable|nosem|ruff:\s*noqa)\b.*$)"
    r"|(//\s*(eslint-disable|biome-ignore|nolint|@ts-(ignore|expect-error))\b.*$)"
    r"|(/\*\s*eslint-disable.*\*/)",
    re.IGNORECASE,
)


def norm(line: str) -> str:
    """A line's identity: suppression comments and all whitespace removed, EOL-agnostic."""
    text = line.rstrip("\r\n")
    if "#" in text or "/" in text:  # every suppression comment starts with one of them
        text = _SUPPRESSION.sub("", text)
    return "".join(text.split())


@dataclass
class LineMap:
    """Base line → head line correspondences for one file pair, and each head line's status."""

    head_count: int
    base_to_head: dict[int, int] = field(default_factory=dict)  # unchanged or whitespace-only
    base_to_head_mod: dict[int, int] = field(default_factory=dict)  # modified, paired in a hunk
    status: dict[int, str] = field(default_factory=dict)  # head line -> status (default unchanged)
    gaps: list[int] = field(default_factory=list)  # head lines just after a pure deletion

    def head_status(self, line: int) -> str:
        return self.status.get(line, UNCHANGED)

    def changed_lines(self) -> frozenset[int]:
        return frozenset(n for n, s in self.status.items() if s != UNCHANGED)

    def project(self, base_line: int) -> int:
        """Head position of a base line, or of its closest mapped neighbour (for tie-breaks)."""
        for table in (self.base_to_head, self.base_to_head_mod):
            if base_line in table:
                return table[base_line]
        keys = sorted(self.base_to_head)
        if not keys:
            return base_line
        below = [k for k in keys if k < base_line]
        anchor = below[-1] if below else keys[0]
        return self.base_to_head[anchor] + (base_line - anchor)


def _pair_hunk(hunk: Hunk, lm: LineMap) -> None:
    """Pair the lines inside one hunk: whitespace-only equal first, then similar ones."""
    old, new = list(hunk.old_lines), list(hunk.new_lines)
    for j in range(len(new)):
        lm.status[hunk.new_start + j] = ADDED
    if not old or not new:
        return
    old_norm, new_norm = [norm(x) for x in old], [norm(x) for x in new]
    matcher = difflib.SequenceMatcher(None, old_norm, new_norm, autojunk=False)
    leftovers: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                lm.base_to_head[hunk.old_start + i1 + k] = hunk.new_start + j1 + k
                lm.status[hunk.new_start + j1 + k] = WS_CHANGED
        elif tag == "replace":
            leftovers.append((i1, i2, j1, j2))
    for i1, i2, j1, j2 in leftovers:
        if i2 - i1 == j2 - j1:  # same size: pair by position (an edited line stays itself)
            pairs = [(i1 + k, j1 + k) for k in range(i2 - i1)]
        else:
            pairs = _similar_pairs(old_norm, new_norm, i1, i2, j1, j2)
        for i, j in pairs:
            lm.base_to_head_mod[hunk.old_start + i] = hunk.new_start + j
            lm.status[hunk.new_start + j] = MODIFIED


def _similar_pairs(old: Sequence[str], new: Sequence[str], i1: int, i2: int, j1: int,
                   j2: int) -> list[tuple[int, int]]:
    """Monotone pairs whose similarity ratio is at least 0.6 (LHDiff's idea, greedily)."""
    pairs: list[tuple[int, int]] = []
    start = j1
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    for i in range(i1, i2):
        best, best_j = 0.6, None
        matcher.set_seq1(old[i])
        for j in range(start, j2):
            # Upper bounds first (the lengths alone, then the characters' counts): a reflowed
            # hunk compares every line with every other, and most pairs fail them.
            total = len(old[i]) + len(new[j])
            if total and 2 * min(len(old[i]), len(new[j])) < best * total:
                continue
            matcher.set_seq2(new[j])
            if matcher.quick_ratio() < best:
                continue
            ratio = matcher.ratio()
            if ratio >= best:
                best, best_j = ratio, j
        if best_j is not None:
            pairs.append((i, best_j))
            start = best_j + 1
    return pairs


def line_map(patch: FilePatch, base_count: int, head_count: int) -> LineMap:
    """Build the map for one file pair from its -U0 hunks."""
    lm = LineMap(head_count)
    if patch.status == "added" or patch.old_path is None:
        lm.status = dict.fromkeys(range(1, head_count + 1), ADDED)
        return lm
    b = h = 1
    for hunk in patch.hunks:
        # -U0 hunks with a zero count name the line *before* the gap.
        old_first = hunk.old_start if hunk.old_count else hunk.old_start + 1
        new_first = hunk.new_start if hunk.new_count else hunk.new_start + 1
        while b < old_first and h < new_first:
            lm.base_to_head[b] = h
            b, h = b + 1, h + 1
        _pair_hunk(Hunk(old_first, hunk.old_count, new_first, hunk.new_count,
                        hunk.old_lines, hunk.new_lines), lm)
        if not hunk.new_count:
            lm.gaps.append(new_first)
        b, h = old_first + hunk.old_count, new_first + hunk.new_count
    while b <= base_count and h <= head_count:
        lm.base_to_head[b] = h
        b, h = b + 1, h + 1
    return lm


def identity_map(count: int) -> LineMap:
    return LineMap(count, {n: n for n in range(1, count + 1)})


def hunk_lines(lm: LineMap, context: int = 3) -> frozenset[int]:
    """Head lines inside a unified hunk with `context` lines: where forges accept comments."""
    lines: set[int] = set()
    for n in lm.changed_lines():
        lines.update(range(max(1, n - context), min(lm.head_count, n + context) + 1))
    for n in lm.gaps:  # a deletion shows its surrounding lines as context
        lines.update(range(max(1, n - context), min(lm.head_count, n + context - 1) + 1))
    return frozenset(lines)
