"""Turn matches into edits: substitute metavariables into a template, keep layout, re-parse.

Pure functions over bytes and trees; nothing here touches the file system.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import tree_sitter as ts

from bot.errors import BotError, Exit
from bot.positions import TextEdit, apply_edits
from bot.structural.lang import Lang, parse
from bot.structural.match import Binding, RawMatch, find
from bot.structural.pattern import NAME, Pattern

_REF = re.compile(rf"\$\{{({NAME})\}}|\$\$\$({NAME})|\$\$?({NAME})")
_WS = b" \t"


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Template:
    text: str
    parts: tuple[str | Ref, ...]


@dataclass(frozen=True)
class ByteEdit:
    start: int
    end: int
    new: bytes
    match_start: int  # the match this edit came from (deletions may widen the range)
    match_end: int


@dataclass(frozen=True)
class FileRewrite:
    edits: tuple[ByteEdit, ...]
    skipped: int  # matches dropped because an enclosing (or earlier) match won
    new_source: bytes
    error: str = ""  # why the rewritten file was refused; empty when it parses


def compile_template(text: str, pattern: Pattern) -> Template:
    """Split `text` into literals and references; every reference must be bound by the pattern."""
    return compile_template_names(text, pattern.names)


def compile_template_names(text: str, names: frozenset[str]) -> Template:
    """`compile_template` against a set of metavariable names (a rule binds them from
    several patterns and transforms)."""
    parts: list[str | Ref] = []
    pos = 0
    body = text.replace("\r\n", "\n")
    for m in _REF.finditer(body):
        name = m.group(1) or m.group(2) or m.group(3)
        if name.startswith("_"):
            raise BotError(f"rewrite uses ${name}: anonymous metavariables capture nothing")
        if name not in names:
            word = name + re.match(r"\w*", body[m.end():]).group(0)  # type: ignore[union-attr]
            raise BotError(_unknown(name, word, names), Exit.USAGE)
        if m.start() > pos:
            parts.append(body[pos:m.start()])
        parts.append(Ref(name))
        pos = m.end()
    if pos < len(body):
        parts.append(body[pos:])
    return Template(text, tuple(parts))


def _unknown(name: str, word: str, names: frozenset[str]) -> str:
    bound = ", ".join(f"${n}" for n in sorted(names)) or "none"
    msg = f"rewrite uses ${name}, which the pattern does not bind (bound: {bound})"
    for known in sorted(names, key=len, reverse=True):
        if name.startswith(known):
            rest = word[len(known):]
            return msg + f"; to append text to ${known}, write ${{{known}}}{rest}"
    return msg


def eol_of(source: bytes) -> str:
    crlf = source.count(b"\r\n")
    return "\r\n" if crlf and crlf >= source.count(b"\n") - crlf else "\n"


def _line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def _indent_at(source: bytes, offset: int) -> bytes:
    start = _line_start(source, offset)
    line = source[start:offset]
    return line[: len(line) - len(line.lstrip(_WS))]


def _inside_token(root: ts.Node, offset: int) -> bool:
    """True when the line break before `offset` belongs to a token (a string, a block
    comment): the line is then part of that token's text and must not be re-indented."""
    if offset <= 0:
        return False
    node = root.descendant_for_byte_range(offset - 1, offset)
    return (node is not None and node.child_count == 0 and node.start_byte <= offset - 1
            and node.end_byte >= offset and bool((node.text or b"").strip()))


def _capture_lines(source: bytes, root: ts.Node, b: Binding) -> list[tuple[str, bool]]:
    """The capture's lines, dedented by its first line's indentation; (text, verbatim)."""
    raw = source[b.start:b.end]
    if b"\n" not in raw:
        return [(raw.decode("utf-8", errors="replace"), False)]
    base = _indent_at(source, b.start)
    lines: list[tuple[str, bool]] = []
    offset = b.start
    for k, line in enumerate(raw.split(b"\n")):
        text = line[:-1] if line.endswith(b"\r") else line
        verbatim = k > 0 and _inside_token(root, offset)
        if k > 0 and not verbatim:
            text = text[len(base):] if text.startswith(base) else text.lstrip(_WS)
        lines.append((text.decode("utf-8", errors="replace"), verbatim))
        offset += len(line) + 1
    return lines


def render(template: Template, raw: RawMatch, source: bytes, root: ts.Node) -> str:
    """The replacement for one match, indented like the match and with the file's line ends."""
    lines: list[tuple[str, bool]] = []  # (text, verbatim: a line that starts inside a string)
    cur, cur_verbatim = "", False
    for part in template.parts:
        if isinstance(part, str):
            first, *rest = part.split("\n")
            cur += first
            for seg in rest:
                lines.append((cur, cur_verbatim))
                cur, cur_verbatim = seg, False
            continue
        cap = _capture_lines(source, root, raw.bindings[part.name])
        tmpl_indent = cur[: len(cur) - len(cur.lstrip(" \t"))]
        cur += cap[0][0]
        for text, verbatim in cap[1:]:
            lines.append((cur, cur_verbatim))
            cur = text if verbatim or not text else tmpl_indent + text
            cur_verbatim = verbatim
    lines.append((cur, cur_verbatim))
    indent = _indent_at(source, raw.start).decode("utf-8", errors="replace")
    out = [lines[0][0]]
    out.extend(text if verbatim or not text else indent + text for text, verbatim in lines[1:])
    return eol_of(source).join(out)


def _widen_deletion(source: bytes, start: int, end: int) -> tuple[int, int]:
    """An empty replacement of whole lines removes the lines too."""
    ls = _line_start(source, start)
    nl = source.find(b"\n", end)
    le = len(source) if nl == -1 else nl
    if source[ls:start].strip(_WS) or source[end:le].strip(b" \t\r"):
        return start, end
    return ls, (le if nl == -1 else nl + 1)


def outermost(raws: list[RawMatch]) -> tuple[list[RawMatch], int]:
    """Keep matches that do not overlap an earlier (outer) one; count the dropped."""
    kept: list[RawMatch] = []
    last_end = -1
    for r in sorted(raws, key=lambda r: (r.start, -r.end)):
        if r.start < last_end or (r.start == last_end and r.start == r.end and kept):
            continue
        kept.append(r)
        last_end = r.end
    return kept, len(raws) - len(kept)


def apply_byte_edits(source: bytes, edits: Iterable[ByteEdit]) -> bytes:
    """`source` with `edits` applied (`positions.apply_edits`: `EditConflict` on overlaps)."""
    return apply_edits(source, [TextEdit(e.start, e.end, e.new) for e in edits])


def _error_count(root: ts.Node) -> int:
    count, stack = 0, [root]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            count += 1
        if n.has_error:
            stack.extend(n.children)
    return count


def _first_error_line(root: ts.Node) -> str:
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            row, _ = n.start_point
            return f"line {row + 1}"
        if n.has_error:
            stack.extend(reversed(n.children))
    return "unknown position"


def rewrite_tree(
    pattern: Pattern,
    template: Template,
    tree: ts.Tree,
    source: bytes,
    found: list[RawMatch] | None = None,
) -> FileRewrite:
    """Edits for every outermost match, the new bytes, and whether they still parse."""
    raws = list(find(pattern, tree, source)) if found is None else found
    return rewrite_matches(pattern.lang, raws, lambda _raw: template, tree, source)


def rewrite_matches(lang: Lang, found: list[RawMatch], template_for: Callable[[RawMatch], Template],
                    tree: ts.Tree, source: bytes,
                    whole_lines: Callable[[RawMatch], bool] = lambda _raw: True) -> FileRewrite:
    """`rewrite_tree` for matches found by any means, each with its own template;
    `whole_lines` says whether an empty replacement of a match may take its lines along."""
    raws, skipped = outermost(found)
    root = tree.root_node
    edits: list[ByteEdit] = []
    for raw in raws:
        new = render(template_for(raw), raw, source, root)
        start, end = raw.start, raw.end
        if not new and whole_lines(raw):
            start, end = _widen_deletion(source, start, end)
        edits.append(ByteEdit(start, end, new.encode(), raw.start, raw.end))
    new_source = apply_byte_edits(source, edits)
    error = ""
    if edits:
        after = parse(lang.grammar, new_source).root_node
        if after.has_error and (not root.has_error or _error_count(after) > _error_count(root)):
            error = (f"the rewritten file does not parse as {lang.name} "
                     f"(syntax error at {_first_error_line(after)} after rewriting)")
    return FileRewrite(tuple(edits), skipped, new_source, error)


def rewrite_source(pattern: Pattern, template: Template, source: bytes) -> FileRewrite:
    return rewrite_tree(pattern, template, parse(pattern.lang.grammar, source), source)
