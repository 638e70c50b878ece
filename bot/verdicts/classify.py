"""Verdicts: pure function of (base findings, head findings, file pairs, line maps, texts).

Every head finding gets one scope (introduced, changed, preexisting; unclassified when its
file has no baseline); base findings with no partner are fixed. Matching is one-to-one, within
the same tool and rule, in passes from the strongest evidence to the weakest (`_PASSES`
below), processing head findings on unchanged lines first
so that when copies outnumber originals the new one is the copy on the added line. Right
after the line map's own pairing, a definition each side holds once (unchanged, or under the
same name) takes its findings back from equal lines of other definitions (PR: definitions
reordered). Code moved
to another changed file is matched last, along the line map `bot.revisions.moves` draws between them.
Per-line facts (normalised text, how often it occurs) are computed once per file.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from bot.model import Finding, Scope, Span, Verdict, Where
from bot.revisions import moves
from bot.revisions.diff import ADDED, MODIFIED, UNCHANGED, WS_CHANGED, LineMap, norm
from bot.revisions.evidence import Evidence, FileSide
from bot.verdicts.reflow import REGION_PAIRS, Landing, TokenMap

if TYPE_CHECKING:  # bot.verdicts.tokens is imported where a file is first read as tokens
    from bot.verdicts.tokens import Code, Definition

STATUS_ORDER = {UNCHANGED: 0, WS_CHANGED: 1, MODIFIED: 2, ADDED: 3}
# Rules that mean "this file did not parse": the tool then drops its other findings there.
SYNTAX_RULES = frozenset({"invalid-syntax", "E999", "syntax-error", "parse-error", "typecheck"})
# What linters report for a finding about the whole file (ruff's CPY001, D100, INP001): no
# characters at all, at the very start. A real finding on line 1 always covers some text.
FILE_START = Span(1, 1, 1, 1)

_LINE_REFS = [
    (re.compile(r"\bline \d+"), "line #"),
    (re.compile(r"\bcolumn \d+"), "column #"),
    (re.compile(r"(?<=[\w./-]):\d+(:\d+)?"), ":#"),
    (re.compile(r"\[\d+:\d+\]"), "[#:#]"),
]
_SCOPE_HEADER = re.compile(
    r"^\s*(async\s+)?(def|class|function|func|fn|impl|struct|interface|enum|trait|mod|module)\b"
    r"|^\s*(export\s+)?(pub(\(\w+\))?\s+)?(async\s+)?(function|fn|class|const|let)\b")
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\d+(\.\d+)?")


def is_file_level(finding: Finding) -> bool:
    """About the file rather than a line: matched by message within the file pair, so lines
    inserted above line 1 do not make it new."""
    return finding.file_level or finding.span == FILE_START


@lru_cache(maxsize=4096)
def msg_exact(message: str) -> str:
    text = " ".join(message.split())
    for pattern, repl in _LINE_REFS:
        text = pattern.sub(repl, text)
    return text


@lru_cache(maxsize=4096)
def msg_shape(message: str) -> str:
    return _NUMBER.sub("<n>", _QUOTED.sub("<q>", msg_exact(message)))


_TRAILING_COMMA = re.compile(r",(?=[)\]}])")


@lru_cache(maxsize=4096)
def msg_layout_free(message: str) -> str:
    """What a message says once the layout of the code it quotes is left out: numbers alone (a
    line length, a count) moving is not a different finding, and neither is a formatter's
    quote style, spacing or trailing comma in the code it cites (ruff's E712 quotes the call)."""
    text = "".join(_NUMBER.sub("<n>", message).replace("'", '"').split())
    return _TRAILING_COMMA.sub("", text)


@dataclass(frozen=True)
class Inputs:
    """The findings of both revisions and the change they sit in (`bot.revisions.evidence`)."""

    base: Sequence[Finding]
    head: Sequence[Finding]
    evidence: Evidence
    # (tool, path) whose run failed at one side: no baseline, classify nothing silently.
    unbaselined: frozenset[tuple[str, str]] = frozenset()


@dataclass
class _Anchored:
    """A finding with what places it: its file pair, its line's hash and context."""

    finding: Finding
    side_path: str  # head path for head findings, base path for base ones
    pair_key: str  # head path of the file pair both sides are grouped under
    line_hash: str
    ctx: tuple[str, ...]
    exact: str
    shape: str
    low_info: bool
    file_level: bool = False
    telling: bool = False  # its context says where it is (`_telling`)
    status: str = UNCHANGED  # head findings: the status of their line
    index: int = 0
    scope: str | None = None

    @property
    def f(self) -> Finding:
        return self.finding


@dataclass(frozen=True)
class _Indexed:
    """What every finding of one file side needs, computed once for the file."""

    side: FileSide
    norms: tuple[str, ...]  # norm() of each line
    counts: Mapping[str, int]  # how often each normalised line occurs

    def norm(self, line: int) -> str:
        return self.norms[line - 1] if 0 < line <= len(self.norms) else ""


def _indexed(side: FileSide) -> _Indexed:
    norms = tuple(map(norm, side.lines))
    return _Indexed(side, norms, Counter(norms))


def _context(ix: _Indexed, line: int, reach: int = 2) -> tuple[str, ...]:
    above: list[str] = []
    n = min(line, len(ix.norms) + 1) - 1
    while n >= 1 and len(above) < reach:
        if ix.norms[n - 1]:
            above.append(ix.norms[n - 1])
        n -= 1
    below: list[str] = []
    n = max(line, 0) + 1
    while n <= len(ix.norms) and len(below) < reach:
        if ix.norms[n - 1]:
            below.append(ix.norms[n - 1])
        n += 1
    return (*reversed(above), "|", *below)


def enclosing_scope(side: FileSide, line: int) -> str | None:
    """The normalised header of the nearest enclosing definition (indentation-based)."""
    text = side.text(line)
    indent = len(text) - len(text.lstrip())
    for n in range(line - 1, 0, -1):
        candidate = side.text(n)
        stripped = candidate.strip()
        if not stripped:
            continue
        depth = len(candidate) - len(candidate.lstrip())
        if depth < indent and _SCOPE_HEADER.match(candidate):
            return norm(candidate)
        if depth == 0 and indent == 0:
            break
    return None


def _without_own_path(message: str, path: str) -> str:
    """A message naming the finding's own file (INP001: File `pkg/a.py` is part of ...) says
    the same thing after the file is renamed or the code moves."""
    if not path or path not in message:
        return message
    return re.sub(rf"(?<![\w./-]){re.escape(path)}(?![\w/-])", "<file>", message)


def _telling(ix: _Indexed, line: int, ctx: tuple[str, ...], reach: int = 2) -> bool:
    """Whether a line's context says where it is: enough text, or a neighbour nothing else in
    the file is, the file's start among them. Lines added above every line of both sides
    (a pure shift) then never make a context telling that was not, or the other way round:
    what they give a line near the top, the file's start gave it already."""
    if len("".join(ctx)) >= 12 or any(ix.counts.get(text, 0) == 1 for text in ctx if text != "|"):
        return True
    above = 0
    for n in range(min(line, len(ix.norms) + 1) - 1, 0, -1):
        above += bool(ix.norms[n - 1])
        if above >= reach:
            return False
    return True


def _anchor(finding: Finding, ix: _Indexed, side_path: str, pair_key: str) -> _Anchored:
    file_level = is_file_level(finding)
    line_hash = "" if file_level else ix.norm(finding.line)
    message = _without_own_path(finding.message, finding.path)
    ctx = () if file_level else _context(ix, finding.line)
    return _Anchored(
        finding, side_path, pair_key, line_hash, ctx,
        msg_exact(message), msg_shape(message),
        len(line_hash) < 12 or ix.counts.get(line_hash, 0) > 3,
        file_level=file_level,
        telling=not file_level and _telling(ix, finding.line, ctx),
        scope=None if file_level else enclosing_scope(ix.side, finding.line),
    )


@dataclass
class _Group:
    """One (tool, rule, file pair): the unit the passes work on."""

    lm: LineMap
    pair_key: str
    head: list[_Anchored] = field(default_factory=list)
    base: list[_Anchored] = field(default_factory=list)


Key = Callable[[_Anchored, LineMap], object]
Guard = Callable[[_Anchored, _Anchored, LineMap], bool]


def _pass_keys() -> list[tuple[str, Key, Key, Guard]]:
    def mapped(table: str) -> Key:
        return lambda b, lm: getattr(lm, table).get(b.f.line) if not b.file_level else None

    def at_line(h: _Anchored, lm: LineMap) -> object:
        return None if h.file_level else h.f.line

    def always(b: _Anchored, h: _Anchored, lm: LineMap) -> bool:
        return True

    return [
        ("P1", mapped("base_to_head"), at_line, always),
        ("P2", mapped("base_to_head_mod"), at_line, lambda b, h, lm: b.shape == h.shape),
        ("P3", lambda b, lm: (b.line_hash, b.exact) if not b.file_level else None,
         lambda h, lm: (h.line_hash, h.exact) if not h.file_level else None,
         lambda b, h, lm: not b.low_info or b.ctx == h.ctx),
        ("P4", lambda b, lm: (b.ctx, b.line_hash) if not b.file_level else None,
         lambda h, lm: (h.ctx, h.line_hash) if not h.file_level else None,
         lambda b, h, lm: bool(b.line_hash)),
        ("P6", lambda b, lm: (b.line_hash, b.shape) if not b.file_level else None,
         lambda h, lm: (h.line_hash, h.shape) if not h.file_level else None,
         lambda b, h, lm: not b.low_info and (h.status != ADDED or b.ctx == h.ctx)),
        ("P8", lambda b, lm: b.exact if b.file_level else None,
         lambda h, lm: h.exact if h.file_level else None, always),
        ("P8s", lambda b, lm: b.shape if b.file_level else None,
         lambda h, lm: h.shape if h.file_level else None, always),
    ]


_PASSES = _pass_keys()


def _run_pass(group: _Group, key_base: Key, key_head: Key, guard: Guard, name: str,
              matched: dict[int, tuple[_Anchored, str]], taken: set[int]) -> None:
    buckets: dict[object, list[_Anchored]] = defaultdict(list)
    for b in group.base:
        if id(b) not in taken:
            key = key_base(b, group.lm)
            if key is not None:
                buckets[key].append(b)
    if not buckets:
        return
    for h in sorted(group.head, key=lambda h: (STATUS_ORDER[h.status], h.f.sort_key())):
        if id(h) in matched:
            continue
        key = key_head(h, group.lm)
        if key is None:
            continue
        candidates = [b for b in buckets.get(key, []) if guard(b, h, group.lm)]
        if not candidates:
            continue
        best = candidates[0] if len(candidates) == 1 else min(candidates, key=lambda b: (
            b.exact != h.exact, b.ctx != h.ctx, abs(group.lm.project(b.f.line) - h.f.line),
            b.f.column != h.f.column, b.index))
        matched[id(h)] = (best, name)
        taken.add(id(best))
        buckets[key].remove(best)


def _lines_suffice(group: _Group) -> bool:
    """Every base finding of the group sits on a line the line map carried to a head line with
    as many findings: P1 pairs them all and the file need not be read as tokens (the common
    push: lines shifted, a finding or two added)."""
    carried = Counter(group.lm.base_to_head.get(b.f.line, -1) for b in group.base if not b.file_level)
    if -1 in carried:
        return False
    at = Counter(h.f.line for h in group.head if not h.file_level)
    return all(at[line] >= n for line, n in carried.items())


def _uncross(group: _Group, tokens: TokenMap, matched: dict[int, tuple[_Anchored, str]],
             taken: set[int]) -> None:
    """Two copies of a statement, one reformatted: the line map may pair the base copy with the
    other copy's line (P1), leaving the other base copy's token to land on a taken line. Where
    each of the two base findings' own tokens lands on the other's head finding, they swap."""
    free = [b for b in group.base if id(b) not in taken and not b.file_level]
    if not free:
        return
    by_line: dict[int, list[_Anchored]] = defaultdict(list)
    for h in group.head:
        if not h.file_level:  # about the whole file, not the line 1 it is reported at
            by_line[h.f.line].append(h)
    for b in free:
        at = tokens.land(b.f.line, b.f.column)
        if at is None or not at.exact:
            continue
        for held in by_line.get(at.line, ()):
            other, name = matched.get(id(held), (None, ""))
            if other is None or name != "P1" or held.shape != b.shape:
                continue
            back = tokens.land(other.f.line, other.f.column)
            if back is None or not back.exact:
                continue
            loose = next((h for h in by_line.get(back.line, ()) if id(h) not in matched
                          and h.shape == other.shape), None)
            if loose is not None:
                matched[id(held)] = (b, "PT")
                matched[id(loose)] = (other, "PT")
                taken.add(id(b))
                break


def _unmatched(group: _Group, matched: dict[int, tuple[_Anchored, str]], taken: set[int]) -> bool:
    return (any(id(h) not in matched for h in group.head)
            and any(id(b) not in taken for b in group.base))


def _held_once(free: Iterable[_Anchored], key: Callable[[_Anchored], object]
               ) -> dict[object, list[_Anchored]]:
    """The unmatched findings of each key that one line holds alone, in order. Identical
    findings on one line (a tool reporting the same thing twice) hold it together: one more
    copy of a finding must not unpair its original."""
    by_key: dict[object, list[_Anchored]] = defaultdict(list)
    for a in free:
        by_key[key(a)].append(a)
    return {k: sorted(found, key=lambda a: a.index) for k, found in by_key.items()
            if len({a.f.line for a in found}) == 1}


def _pair_held_once(group: _Group, matched: dict[int, tuple[_Anchored, str]], taken: set[int],
                    key: Callable[[_Anchored], object | None], name: str,
                    guard: Callable[[_Anchored, _Anchored], bool]) -> None:
    """Pairs the findings of a key one line holds on each side, one to one in order, each
    with the first the guard allows, the same message first."""
    free_b = [b for b in group.base if id(b) not in taken and key(b) is not None]
    free_h = [h for h in group.head if id(h) not in matched and key(h) is not None]
    once_b = _held_once(free_b, key)
    for k, heads in _held_once(free_h, key).items():
        left = once_b.get(k, [])
        for h in heads:
            partner = min((b for b in left if guard(b, h)), default=None,
                          key=lambda b: (b.exact != h.exact, b.index))
            if partner is not None:
                left.remove(partner)
                matched[id(h)] = (partner, name)
                taken.add(id(partner))


def _unique_block_pass(group: _Group, matched: dict[int, tuple[_Anchored, str]],
                       taken: set[int]) -> None:
    """P4 proper: a context block held by one unmatched line on each side, telling enough to
    say where it is (`_telling`), its findings saying the same kind of thing (message shape):
    a line rewritten into other code between the same neighbours with another message is
    another finding."""
    _pair_held_once(group, matched, taken, lambda a: None if a.file_level else a.ctx, "P4b",
                    lambda b, h: b.telling and h.telling and b.shape == h.shape)


def _unique_scope_pass(group: _Group, matched: dict[int, tuple[_Anchored, str]],
                       taken: set[int]) -> None:
    """P5: same enclosing definition and message, held by one line on each side (a reflowed
    line)."""
    _pair_held_once(group, matched, taken,
                    lambda a: (a.scope, a.exact) if a.scope else None, "P5", lambda b, h: True)


def _token_pass(group: _Group, tokens: TokenMap, matched: dict[int, tuple[_Anchored, str]],
                taken: set[int], which: Callable[[_Anchored], bool]) -> None:
    """PT: a base finding whose token arrived, through a rewritten region, on the head
    finding's line (a reflowed call, a wrapped signature). Its own token is evidence enough
    for any message, as an unchanged line is; a neighbour's needs the same message shape."""
    landed: dict[int, list[tuple[_Anchored, Landing]]] = defaultdict(list)
    for b in group.base:
        if id(b) not in taken and not b.file_level and which(b):
            landing = tokens.land(b.f.line, b.f.column)
            if landing is not None:
                landed[landing.line].append((b, landing))
    if not landed:
        return
    for h in sorted(group.head, key=lambda h: (STATUS_ORDER[h.status], h.f.sort_key())):
        if id(h) in matched or h.file_level:
            continue
        candidates = [(b, at) for b, at in landed.get(h.f.line, ())
                      if id(b) not in taken and (at.exact or b.shape == h.shape)]
        if not candidates:
            continue
        b, _ = min(candidates, key=lambda c: (not c[1].exact, c[0].exact != h.exact,
                                              abs(c[1].column - h.f.column), c[0].index))
        matched[id(h)] = (b, "PT")
        taken.add(id(b))


# Tokens from a finding's own on that make its layout-free context (PW): only those after it,
# so that a copy at the top of a file has the same context as one below another copy.
WINDOW = 8


def _window(a: _Anchored, code: Code) -> tuple[tuple[str, ...], str] | None:
    k = code.token_at(a.f.line, a.f.column)
    if k is None:
        return None
    window = tuple(t.text for t in code.tokens[k:k + WINDOW + 1])
    words = sum(1 for text in window if any(c.isalnum() for c in text))
    return (window, a.exact) if words >= 3 else None


def _window_pass(group: _Group, base: Code, head: Code, matched: dict[int, tuple[_Anchored, str]],
                 taken: set[int]) -> None:
    """PW: the same tokens around the finding's own and the same message, whatever the
    layout: a statement the line map paired with another copy of it, then reformatted."""
    buckets: dict[tuple[tuple[str, ...], str], list[_Anchored]] = defaultdict(list)
    for b in group.base:
        if id(b) not in taken and not b.file_level and (key := _window(b, base)) is not None:
            buckets[key].append(b)
    if not buckets:
        return
    for h in sorted(group.head, key=lambda h: (STATUS_ORDER[h.status], h.f.sort_key())):
        if id(h) in matched or h.file_level or (key := _window(h, head)) is None:
            continue
        free = [b for b in buckets.get(key, ()) if id(b) not in taken]
        if free:
            b = min(free, key=lambda b: (abs(group.lm.project(b.f.line) - h.f.line), b.index))
            matched[id(h)] = (b, "PW")
            taken.add(id(b))


class _WholeDefinitions:
    """A file's definitions by their whole tokens (name included) and by their names: one held
    once on each side of a change is the same definition, wherever either side put it."""

    def __init__(self, code: Code) -> None:
        self.code = code
        self.texts = {d: code.texts(d.start, d.stop) for d in code.definitions}
        held = Counter(self.texts.values())
        self.once = {text: d for d, text in self.texts.items() if held[text] == 1}
        names = {d: code.tokens[d.name].text for d in code.definitions if d.name is not None}
        named = Counter(names.values())
        self.named = {name: d for d, name in names.items() if named[name] == 1}
        self.names = names
        self.aligned: dict[tuple[Definition, Definition], dict[int, int]] = {}

    def token(self, a: _Anchored) -> int | None:
        return self.code.token_at(a.f.line, a.f.column)

    def origin(self, token: int, base: _WholeDefinitions) -> int | None:
        """The base token a head token was, through the innermost definition around it that
        both sides hold once: unchanged, else under the same name (reformatted, lines added or
        edited), its token among those that align. Either side holding the name twice says
        nothing."""
        for d in reversed(self.code.definitions):  # inner ones come after the outer
            if not d.start <= token < d.stop:
                continue
            text = self.texts[d]
            before = base.once.get(text) if self.once.get(text) is d else None
            if before is not None:
                return before.start + token - d.start
            name = self.names.get(d)
            before = base.named.get(name) if name and self.named.get(name) is d else None
            if before is not None:
                old = base.texts[before]
                if len(old) * len(text) > REGION_PAIRS:  # too costly to align: no claim
                    return None
                if (d, before) not in self.aligned:
                    self.aligned[(d, before)] = self.code.aligned(text, old)
                at = self.aligned[(d, before)].get(token - d.start)
                return None if at is None else before.start + at
        return None


def _maybe_reordered(group: _Group, matched: dict[int, tuple[_Anchored, str]],
                     taken: set[int]) -> bool:
    """Whether PR could pair anything the files need not be read as tokens for: a finding left
    without a partner on a line a finding of the other side saying the same kind of thing has
    too (a finding of a definition moved is on the same line as before; the line map may have
    given its partner to an equal line). A new finding on a new line, or an old one gone with
    its line, the common pushes, read no tokens."""
    def keys(found: Iterable[_Anchored]) -> set[tuple[str, str]]:
        return {(a.line_hash, a.shape) for a in found if not a.file_level}

    free_h = keys(h for h in group.head if id(h) not in matched)
    free_b = keys(b for b in group.base if id(b) not in taken)
    return bool(free_h & keys(group.base) or free_b & keys(group.head))


def _reordered_pass(group: _Group, base: _WholeDefinitions, head: _WholeDefinitions,
                    matched: dict[int, tuple[_Anchored, str]], taken: set[int]) -> None:
    """PR: definitions written in another order within the file. The line map pairs a line
    left in place with an equal line of another definition moved there (`if x == None:` in
    each of five functions reversed), and the tokens of a rewritten region align a reformatted
    function's with those of another one the region held: a finding may be given the base
    finding of another definition, and the last definition's finding is left with none.

    A head finding in a definition both sides hold once (`_WholeDefinitions.origin`) takes the
    base finding on its own token, from a finding with no such claim to it: the one displaced
    looks for its own in turn, and then goes on through the passes after P1, as does a base
    finding let go."""
    base_at: dict[int, list[_Anchored]] = defaultdict(list)
    for b in group.base:
        if not b.file_level and (k := base.token(b)) is not None:
            base_at[k].append(b)
    if not base_at:
        return
    holder = {id(matched[id(h)][0]): h for h in group.head if id(h) in matched}
    origins: dict[int, int | None] = {}

    def origin(h: _Anchored) -> int | None:
        if id(h) not in origins:
            k = None if h.file_level else head.token(h)
            origins[id(h)] = None if k is None else head.origin(k, base)
        return origins[id(h)]

    queue = deque(h for h in group.head if not h.file_level)
    while queue:
        h = queue.popleft()
        k = origin(h)
        own = [b for b in base_at.get(k, ()) if b.shape == h.shape] if k is not None else []
        held = matched.get(id(h), (None, ""))[0]
        if held is not None and any(b is held for b in own):
            continue  # already paired with a finding of its own token
        for b in sorted(own, key=lambda b: (b.exact != h.exact, b.f.column != h.f.column,
                                            id(b) in taken, b.index)):
            other = holder.get(id(b))
            if other is not None and origin(other) == k:
                continue  # held by a finding of its own token
            if other is not None:
                del matched[id(other)]
                queue.append(other)
                # Its line is not the base line the line map paired it with: it came with its
                # code (moved in from another file, a copy), which the moves passes look at.
                other.status = ADDED
            if held is not None:  # let go: later passes may pair it with another finding
                taken.discard(id(held))
                del holder[id(held)]
            matched[id(h)] = (b, "PR")
            taken.add(id(b))
            holder[id(b)] = h
            break


def _verdict_for_pair(h: _Anchored, b: _Anchored, pass_name: str, fingerprint: str) -> Verdict:
    reasons: list[str] = []
    if msg_layout_free(h.exact) != msg_layout_free(b.exact):
        reasons.append("message-args" if h.shape == b.shape else "message")
    if h.f.severity > b.f.severity:
        reasons.append("severity-up")
    elif h.f.severity < b.f.severity:
        reasons.append("severity-down")
    return Verdict(h.f, Scope.CHANGED if reasons else Scope.PREEXISTING, fingerprint,
                   touched=h.status != UNCHANGED, base=b.f, reasons=tuple(reasons),
                   matched_by=pass_name)


def _where(h: _Anchored, lm: LineMap, added_file: bool, renamed: bool) -> Where:
    if added_file:
        return "diff"
    if h.file_level:  # its place is the whole file: in the diff when the change edited the file
        return "diff" if renamed or lm.changed_lines() or lm.gaps else "elsewhere"
    last = min(h.f.span.end_line, h.f.line + 9)
    touched = any(lm.head_status(n) != UNCHANGED for n in range(h.f.line, max(h.f.line, last) + 1))
    return "diff" if touched else "elsewhere"


def fingerprint(f: Finding, line_hash: str, shape: str, occurrence: int) -> str:
    """Identity that survives line shifts: what the finding says about which code, not where."""
    raw = "\0".join((f.tool, f.rule, f.path, line_hash, shape, str(occurrence)))
    return hashlib.sha1(raw.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def _fingerprints(items: Iterable[_Anchored]) -> dict[int, str]:
    seen: dict[tuple[str, str, str, str, str], int] = defaultdict(int)
    out: dict[int, str] = {}
    for a in sorted(items, key=lambda a: a.f.sort_key()):
        key = (a.f.tool, a.f.rule, a.side_path, a.line_hash, a.shape)
        out[id(a)] = fingerprint(a.f, a.line_hash, a.shape, seen[key])
        seen[key] += 1
    return out


@dataclass
class _State:
    """One classification: its inputs, what is worked out once per file or file pair (the memo
    tables, filled at the first pass that needs each entry), the anchored findings and the
    pairing so far. Every pass is a function of it that adds pairs."""

    inputs: Inputs
    heads: list[_Anchored] = field(default_factory=list)
    bases: list[_Anchored] = field(default_factory=list)
    groups: dict[tuple[str, str, str], _Group] = field(default_factory=dict)
    matched: dict[int, tuple[_Anchored, str]] = field(default_factory=dict)  # head -> base, pass
    taken: set[int] = field(default_factory=set)  # the base findings paired
    indexed: dict[tuple[str, str], _Indexed] = field(default_factory=dict)  # (side, path)
    line_maps: dict[str, LineMap] = field(default_factory=dict)  # pair key
    codes: dict[tuple[str, str], Code] = field(default_factory=dict)  # (side, path)
    wholes: dict[tuple[str, str], _WholeDefinitions] = field(default_factory=dict)
    token_maps: dict[str, TokenMap | None] = field(default_factory=dict)  # pair key

    @property
    def evidence(self) -> Evidence:
        return self.inputs.evidence

    def index(self, side: str, path: str) -> _Indexed:
        if (side, path) not in self.indexed:
            self.indexed[(side, path)] = _indexed(self.evidence.side(side, path))
        return self.indexed[(side, path)]

    def lm_of(self, pair_key: str) -> LineMap:
        if pair_key not in self.line_maps:
            self.line_maps[pair_key] = self.evidence.line_map(pair_key)
        return self.line_maps[pair_key]

    def group(self, tool: str, rule: str, pair_key: str) -> _Group:
        key = (tool, rule, pair_key)
        if key not in self.groups:
            self.groups[key] = _Group(self.lm_of(pair_key), pair_key)
        return self.groups[key]

    def code(self, side: str, path: str) -> Code:
        """A file side read as tokens, at the first pass that needs it: most files never do."""
        if (side, path) not in self.codes:
            from bot.verdicts.tokens import read

            self.codes[(side, path)] = read(path, self.evidence.side(side, path).lines)
        return self.codes[(side, path)]

    def whole_definitions(self, side: str, path: str) -> _WholeDefinitions:
        if (side, path) not in self.wholes:
            self.wholes[(side, path)] = _WholeDefinitions(self.code(side, path))
        return self.wholes[(side, path)]

    def token_map(self, pair_key: str) -> TokenMap | None:
        if pair_key not in self.token_maps:
            base_path = self.evidence.base_path(pair_key)
            base_side = self.evidence.base_files.get(base_path) if base_path is not None else None
            head_side = self.evidence.head_files.get(pair_key)
            self.token_maps[pair_key] = None if base_side is None or head_side is None else TokenMap(
                self.code("base", base_path or pair_key), self.code("head", pair_key),
                self.lm_of(pair_key), len(base_side.lines))
        return self.token_maps[pair_key]

    def pair(self, h: _Anchored, b: _Anchored, name: str) -> None:
        self.matched[id(h)] = (b, name)
        self.taken.add(id(b))


def classify(inputs: Inputs) -> tuple[list[Verdict], list[Verdict], list[str]]:
    """Returns (head verdicts, fixed verdicts, notes), each sorted deterministically."""
    state = _State(inputs)
    _anchor_all(state)
    for g in list(state.groups.values()):
        if g.base and g.head:
            _pair_group(state, g)
    untraced = _moved_pass(state)
    _definition_pass(state)
    verdicts = _head_verdicts(state)
    fixed, notes = _fixed_verdicts(state)
    verdicts.sort(key=lambda v: v.finding.sort_key())
    fixed.sort(key=lambda v: v.finding.sort_key())
    return verdicts, fixed, notes + _limits_notes(state, untraced)


def _anchor_all(state: _State) -> None:
    """Every finding anchored in its file and put in its group: a head finding under its own
    path, a base one under the head path of its file pair (a deleted file's, or one whose
    path the head gave a new file, under a key no head path can be)."""
    evidence = state.evidence
    for i, f in enumerate(sorted(state.inputs.head, key=Finding.sort_key)):
        a = _anchor(f, state.index("head", f.path), f.path, f.path)
        a.index = i
        g = state.group(f.tool, f.rule, f.path)
        a.status = ADDED if a.file_level and evidence.base_path(f.path) is None else (
            g.lm.head_status(f.line))
        g.head.append(a)
        state.heads.append(a)
    reverse = evidence.reverse()
    for i, f in enumerate(sorted(state.inputs.base, key=Finding.sort_key)):
        pair_key = reverse.get(f.path, f.path if f.path not in evidence.deleted else f"\0{f.path}")
        if pair_key in evidence.pairs and evidence.pairs[pair_key] is None:
            pair_key = f"\0{f.path}"  # the head path is a new file that only shares the name
        a = _anchor(f, state.index("base", f.path), f.path, pair_key)
        a.index = i
        state.group(f.tool, f.rule, pair_key).base.append(a)
        state.bases.append(a)


def _pair_group(state: _State, g: _Group) -> None:
    """The passes within one group, strongest evidence first (`_PASSES`)."""
    matched, taken = state.matched, state.taken
    tokens = state.token_map(g.pair_key) if g.lm.changed_lines() and not _lines_suffice(g) else None
    if tokens is not None:
        # The line map's pairing of a line a formatter could have made (`foo(`, `)`,
        # `alpha,`) is a guess: the tokens settle findings there before P1 trusts it.
        whole = tokens.whole
        _token_pass(g, tokens, matched, taken, lambda b: b.f.line not in whole)
    for name, key_base, key_head, guard in _PASSES:
        _run_pass(g, key_base, key_head, guard, name, matched, taken)
        if name == "P1":
            if tokens is not None and _unmatched(g, matched, taken):
                _token_pass(g, tokens, matched, taken, lambda b: True)
                _uncross(g, tokens, matched, taken)
            _reordered(state, g, tokens is not None)
        if name == "P3":
            _unique_block_pass(g, matched, taken)
            _unique_scope_pass(g, matched, taken)
    if g.lm.changed_lines() and _unmatched(g, matched, taken):
        base_path = state.evidence.base_path(g.pair_key)
        if base_path is not None and g.pair_key in state.evidence.head_files:
            _window_pass(g, state.code("base", base_path), state.code("head", g.pair_key),
                         matched, taken)


def _reordered(state: _State, g: _Group, read: bool) -> None:
    """PR on a group, when it can pair anything: when the files are read as tokens anyway
    and definitions came, went or changed places (a formatting commit keeps them in order:
    nothing to check), or when a finding left without a partner has the line of one on
    the other side (`_maybe_reordered`)."""
    base_path = state.evidence.base_path(g.pair_key)
    if base_path is None or g.pair_key not in state.evidence.head_files:
        return
    if (read and state.code("base", base_path).names() != state.code("head", g.pair_key).names()) or (
            (g.lm.changed_lines() or g.lm.gaps) and _maybe_reordered(g, state.matched, state.taken)):
        _reordered_pass(g, state.whole_definitions("base", base_path),
                        state.whole_definitions("head", g.pair_key), state.matched, state.taken)


def _head_verdicts(state: _State) -> list[Verdict]:
    broken_base = {(b.f.tool, b.pair_key) for b in state.bases if b.f.rule in SYNTAX_RULES}
    head_fp = _fingerprints(state.heads)
    return [_head_verdict(state, h, head_fp[id(h)], broken_base) for h in state.heads]


def _head_verdict(state: _State, h: _Anchored, fp: str,
                  broken_base: set[tuple[str, str]]) -> Verdict:
    if id(h) in state.matched:
        b, name = state.matched[id(h)]
        return _verdict_for_pair(h, b, name, fp)
    base_path = state.evidence.base_path(h.f.path)
    where = _where(h, state.lm_of(h.pair_key), base_path is None, base_path != h.f.path)
    unbaselined = state.inputs.unbaselined
    if base_path is not None and ((h.f.tool, base_path) in unbaselined
                                  or (h.f.tool, h.f.path) in unbaselined
                                  or (h.f.tool, h.pair_key) in broken_base):
        scope = Scope.INTRODUCED if where == "diff" else Scope.UNCLASSIFIED
        return Verdict(h.f, scope, fp, where=where if scope is Scope.INTRODUCED else None,
                       reasons=("no-baseline",))
    return Verdict(h.f, Scope.INTRODUCED, fp, where=where)


def _fixed_verdicts(state: _State) -> tuple[list[Verdict], list[str]]:
    """The base findings left without a partner, and a note for those that could not be
    compared (their file does not parse at one revision, or the tool failed on it)."""
    broken = {(h.f.tool, h.pair_key) for h in state.heads if h.f.rule in SYNTAX_RULES}
    suppressed: dict[tuple[str, str], int] = defaultdict(int)
    leftovers = [b for b in state.bases if id(b) not in state.taken]
    base_fp = _fingerprints(leftovers)
    fixed: list[Verdict] = []
    for b in leftovers:
        if (b.f.tool, b.pair_key) in broken or (b.f.tool, b.f.path) in state.inputs.unbaselined:
            suppressed[(b.f.tool, b.f.path)] += 1
            continue
        fixed.append(Verdict(b.f, Scope.FIXED, base_fp[id(b)]))
    notes = [f"{tool}: {n} finding(s) of the merge base in {path} could not be compared "
             "(the file does not parse at one revision, or the tool failed on it); "
             "not counted as fixed" for (tool, path), n in sorted(suppressed.items())]
    return fixed, notes


def _limits_notes(state: _State, untraced: int) -> list[str]:
    """What the budgets left to the weaker passes."""
    notes = []
    unaligned = sum(t.skipped for t in state.token_maps.values() if t is not None)
    if unaligned:
        notes.append(f"{unaligned} rewritten region(s) too large to compare token by token: "
                     "findings there were matched line by line only")
    if untraced:
        notes.append(f"{untraced} pair(s) of changed files too large to trace line by line: "
                     "findings in code moved between them were matched only through the "
                     "definition around them")
    return notes


def _moved_pass(state: _State) -> int:
    """P7: code moved to another changed file keeps its findings (`bot.revisions.moves` says where each
    removed line went). A line carried verbatim pairs like P1 (a lone line only with its exact
    message), a line edited inside the moved block like P2 (same message shape): P7m.

    A block copied to several places has one origin: pairs are taken verbatim before edited,
    exact message first, then from the move that carried the most lines verbatim, then by
    head file and line order. The other copies are introduced, like any copy.

    Returns how many file pairs were too large to align."""
    free_b = [b for b in state.bases if id(b) not in state.taken and not b.file_level
              and b.f.line not in state.lm_of(b.pair_key).base_to_head]
    free_h = [h for h in state.heads if id(h) not in state.matched and not h.file_level
              and h.status in (ADDED, MODIFIED)]
    if not free_b or not free_h:
        return 0
    by_source: dict[str, list[_Anchored]] = defaultdict(list)
    for b in free_b:
        by_source[b.pair_key].append(b)
    at_line: dict[tuple[str, str, str, int], list[_Anchored]] = defaultdict(list)
    for h in free_h:
        at_line[(h.f.tool, h.f.rule, h.f.path, h.f.line)].append(h)
    candidates: list[tuple[tuple[object, ...], _Anchored, _Anchored, str]] = []
    found, untraced = moves.moves(*_moved_lines(state, free_b, free_h))
    for move in found:
        for b in by_source[move.source]:
            if b.f.line in move.verbatim:
                line, run = move.verbatim[b.f.line]
                kind, name = 0, "P7"
            elif b.f.line in move.edited:
                line, run, kind, name = move.edited[b.f.line], 0, 1, "P7m"
            else:
                continue
            for h in at_line.get((b.f.tool, b.f.rule, move.target, line), ()):
                if kind == 0 and run < 2 and (b.low_info or b.exact != h.exact):
                    continue
                if kind == 1 and b.shape != h.shape:
                    continue
                rank = (kind, b.exact != h.exact, -move.carried, b.f.column != h.f.column,
                        h.index, b.index)
                candidates.append((rank, h, b, name))
    for _, h, b, name in sorted(candidates, key=lambda c: c[0]):
        if id(h) not in state.matched and id(b) not in state.taken:
            state.pair(h, b, name)
    return untraced


def _moved_lines(state: _State, free_b: Sequence[_Anchored], free_h: Sequence[_Anchored]
                 ) -> tuple[list[moves.Lines], list[moves.Lines]]:
    """The lines the change removed from the base files of `free_b`, and those it added or
    edited in the head files of `free_h`, normalised."""
    base_path = {b.pair_key: b.side_path for b in free_b}
    lost = []
    for key, path in sorted(base_path.items()):
        kept = state.lm_of(key).base_to_head
        texts = state.index("base", path).norms
        numbers = tuple(n for n in range(1, len(texts) + 1) if n not in kept)
        lost.append(moves.Lines(key, numbers, tuple(texts[n - 1] for n in numbers)))
    gained = []
    for path in sorted({h.f.path for h in free_h}):
        lm, texts = state.lm_of(path), state.index("head", path).norms
        numbers = tuple(n for n in range(1, len(texts) + 1) if lm.head_status(n) in (ADDED, MODIFIED))
        gained.append(moves.Lines(path, numbers, tuple(texts[n - 1] for n in numbers)))
    return lost, gained


# Two definitions are one moved and edited when this share of their tokens align.
SIMILAR_DEFINITION = 0.8
# Definitions this short (`def f(): pass`) say too little to recognise one after a move.
MIN_DEFINITION_TOKENS = 8
# An edited definition under another name is the same one only when it is this long: a short
# one is as alike to any other short one (`print(1); return None`).
MIN_RENAMED_AND_EDITED = 30
# Token pairs compared between definitions per review at most (equal ones cost nothing).
DEFINITION_PAIRS = 2_000_000


@dataclass
class _Enclosed:
    """A finding with the token under it and the definitions around it, innermost first."""

    anchored: _Anchored
    code: Code
    token: int
    around: list[Definition]


def _enclosed(a: _Anchored, code: Code) -> _Enclosed | None:
    k = code.token_at(a.f.line, a.f.column)
    if k is None:
        return None
    around = [d for d in reversed(code.definitions) if d.start <= k < d.stop
              and d.stop - d.start >= MIN_DEFINITION_TOKENS]
    return _Enclosed(a, code, k, around) if around else None


_Target = tuple["Code", "Definition", tuple[str, ...]]  # a head definition and its signature


def _definition_pass(state: _State) -> None:
    """PD: a function, method or class moved anywhere (another file, another class), renamed,
    reformatted or lightly edited keeps its findings: the definition around a base finding is
    found among the definitions around the head's unmatched findings, by its tokens with its
    own name left out (equal, else at least SIMILAR_DEFINITION alike), and the finding's token
    is followed into it. The flagged token must arrive on the head finding's line with the
    same message shape."""
    # Files are read as tokens only for findings that could pair: a change that only adds
    # findings never reads one.
    left = [b for b in state.bases if id(b) not in state.taken and not b.file_level]
    left_rules = {(b.f.tool, b.f.rule) for b in left}
    free_h = [e for h in state.heads if id(h) not in state.matched and not h.file_level
              and h.status in (ADDED, MODIFIED) and (h.f.tool, h.f.rule) in left_rules
              and (e := _enclosed(h, state.code("head", h.f.path))) is not None]
    if not free_h:
        return
    rules = {(e.anchored.f.tool, e.anchored.f.rule) for e in free_h}
    free_b = [e for b in left if (b.f.tool, b.f.rule) in rules
              and (e := _enclosed(b, state.code("base", b.side_path))) is not None]
    if not free_b:
        return
    targets: dict[tuple[str, int], _Target] = {}
    for e in free_h:
        for d in e.around:
            targets.setdefault((e.anchored.f.path, d.start), (e.code, d, e.code.signature(d)))
    at_line: dict[tuple[str, str, str, int], list[_Anchored]] = defaultdict(list)
    for e in free_h:
        h = e.anchored
        at_line[(h.f.tool, h.f.rule, h.f.path, h.f.line)].append(h)
    for _, h, b in sorted(_definition_candidates(free_b, targets, at_line), key=lambda c: c[0]):
        if id(h) not in state.matched and id(b) not in state.taken:
            state.pair(h, b, "PD")


def _definition_candidates(free_b: Sequence[_Enclosed], targets: Mapping[tuple[str, int], _Target],
                           at_line: Mapping[tuple[str, str, str, int], Sequence[_Anchored]]
                           ) -> list[tuple[tuple[object, ...], _Anchored, _Anchored]]:
    """Each base finding with the head findings its token arrives on, through the innermost
    definition around it that has a partner (equal first, else similar within the budget)."""
    by_signature: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for key, (_, _, sig) in sorted(targets.items()):
        by_signature[sig].append(key)
    budget = DEFINITION_PAIRS
    found: dict[tuple[str, int], list[tuple[tuple[str, int], float]]] = {}
    candidates: list[tuple[tuple[object, ...], _Anchored, _Anchored]] = []
    for e in sorted(free_b, key=lambda e: e.anchored.f.sort_key()):
        b = e.anchored
        for depth, d in enumerate(e.around):
            source = (b.side_path, d.start)
            if source not in found:
                sig = e.code.signature(d)
                partners = [(key, 1.0) for key in by_signature.get(sig, ())]
                if not partners:
                    partners, budget = _similar_definitions(
                        sig, e.code.name_of(d), targets, budget)
                found[source] = partners
            for key, ratio in found[source]:
                target_code, target, target_sig = targets[key]
                moved = e.code.aligned(e.code.signature(d), target_sig).get(e.token - d.start)
                if moved is None:
                    continue
                line = target_code.tokens[target.start + moved].line
                for h in at_line.get((b.f.tool, b.f.rule, key[0], line), ()):
                    if b.shape == h.shape:
                        candidates.append(((depth, -ratio, b.exact != h.exact,
                                            b.f.column != h.f.column, h.index, b.index), h, b))
            if found[source]:
                break
    return candidates


def _similar_definitions(sig: tuple[str, ...], name: str | None,
                         targets: Mapping[tuple[str, int], _Target], budget: int
                         ) -> tuple[list[tuple[tuple[str, int], float]], int]:
    """The definitions at least SIMILAR_DEFINITION alike (renamed ones only when long), with
    the budget left."""
    out = []
    matcher = difflib.SequenceMatcher(None, b=sig, autojunk=False)
    for key, (code, d, other) in sorted(targets.items()):
        shorter, longer = sorted((len(sig), len(other)))
        if shorter < SIMILAR_DEFINITION * longer or budget < len(sig) * len(other):
            continue
        if shorter < MIN_RENAMED_AND_EDITED and code.name_of(d) != name:
            continue
        budget -= len(sig) * len(other)
        matcher.set_seq1(other)
        if matcher.quick_ratio() >= SIMILAR_DEFINITION and matcher.ratio() >= SIMILAR_DEFINITION:
            out.append((key, matcher.ratio()))
    return out, budget
