"""Markdown bodies parsed the way GitHub renders comments (CommonMark + GFM tables, autolinks,
strikethrough, task lists; raw HTML on; a newline is a line break), and the structural facts the
rendered-Markdown tests assert: table rows and their cells, fenced blocks, raw HTML, and the
text GitHub would turn into a mention or an issue reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_block.table import escapedSplit
from markdown_it.token import Token
from mdit_py_plugins.gfm import gfm_plugin

# What GitHub links in text (not in code, not in a link): `@user`, `@org/team`, `#123`,
# `owner/repo#123`, `GH-123`; and GitLab's `!123` (a merge request). Deliberately broader than
# the forges (no word-boundary rule): a test passes only when nothing of the sort survives.
PING = re.compile(r"@[A-Za-z0-9]|#[0-9]|![0-9]|\bGH-[0-9]", re.IGNORECASE)
# The HTML the bot may write on purpose: its hidden markers and a few balanced tags.
MARKERS = (re.compile(r"<!-- reviewbot:(?:summary|fp=[A-Za-z0-9._:+/=~-]{1,200} h=[0-9a-f]{1,64}"
                      r"|state [A-Za-z0-9+/=]{1,60000}|sweep ref=\S+ state=[A-Za-z0-9_=-]*"
                      r"|reply [0-9a-f]{32}) -->"),)
TAGS = {"details", "summary", "sub", "br"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)\b[^<>]*>|<!--.*?-->", re.DOTALL)


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True, "breaks": True}).use(gfm_plugin)


def parse(body: str) -> list[Token]:
    return _parser().parse(body)


def render_html(body: str) -> str:
    return _parser().render(body)


def walk(tokens: Sequence[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from walk(token.children)


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]  # the cells' inline source, as the parser kept them
    source_widths: tuple[int, ...]  # cells per row in the source, header first (kept or not)


def tables(body: str) -> list[Table]:
    """Every table, with the cell count of each source row: the parser drops a row's excess
    cells silently, so a row split by a stray pipe shows only in its source."""
    lines = body.split("\n")
    found: list[Table] = []
    rows: list[tuple[str, ...]] = []
    widths: list[int] = []
    cells: list[str] = []
    for token in parse(body):
        if token.type == "table_open":
            rows, widths = [], []
        elif token.type == "tr_open":
            cells = []
            assert token.map is not None
            widths.append(_source_width(lines[token.map[0]]))
        elif token.type == "inline" and cells is not None:
            cells.append(token.content)
        elif token.type == "tr_close":
            rows.append(tuple(cells))
        elif token.type == "table_close":
            found.append(Table(rows[0], tuple(rows[1:]), tuple(widths)))
    return found


def _source_width(line: str) -> int:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return len(escapedSplit(text))


def check_tables(body: str) -> list[Table]:
    """Every row of every table has the header's cell count, in the source too."""
    found = tables(body)
    for table in found:
        width = len(table.header)
        assert all(w == width for w in table.source_widths), (table, body)
        assert all(len(row) == width for row in table.rows), (table, body)
    return found


@dataclass(frozen=True)
class Fence:
    info: str
    content: str


def fences(body: str) -> list[Fence]:
    """Fenced and indented code blocks, in order (an indented one has info `<indented>`)."""
    out = []
    for token in parse(body):
        if token.type == "fence":
            out.append(Fence(token.info, token.content))
        elif token.type == "code_block":
            out.append(Fence("<indented>", token.content))
    return out


def html(body: str) -> list[str]:
    """The raw HTML of `body`: every html_block and html_inline token, verbatim."""
    return [t.content for t in walk(parse(body)) if t.type in ("html_block", "html_inline")]


def check_html(body: str) -> None:
    """The only raw HTML is a hidden marker or an allowed tag, and the tags balance."""
    stack: list[str] = []
    for chunk in html(body):
        rest = chunk
        for found in _TAG.finditer(chunk):
            piece = found.group(0)
            if piece.startswith("<!--"):
                assert any(m.fullmatch(piece) for m in MARKERS), (piece, body)
            else:
                name = found.group(2).lower()
                assert name in TAGS, (piece, body)
                if name == "br":
                    pass
                elif found.group(1):
                    assert stack and stack.pop() == name, (piece, body)
                else:
                    stack.append(name)
            rest = rest.replace(piece, "", 1)
        # Text inside raw HTML is not Markdown: GitHub still links mentions in it.
        assert "<" not in rest and not PING.search(rest), (rest, body)
    assert not stack, (stack, body)


def text(body: str) -> str:
    """The text GitHub would scan for mentions and references: text outside code spans, code
    blocks and links, one inline run per line."""
    out: list[str] = []
    for token in parse(body):
        if token.type != "inline" or not token.children:
            continue
        depth, run = 0, []
        for child in token.children:
            if child.type == "link_open":
                depth += 1
            elif child.type == "link_close":
                depth -= 1
            elif depth:
                continue
            elif child.type == "text":
                run.append(child.content)
            elif child.type in ("softbreak", "hardbreak", "code_inline"):
                run.append(" ")
        out.append("".join(run))
    return "\n".join(out)


def check_no_pings(body: str) -> None:
    shown = text(body)
    assert not PING.search(shown), (PING.search(shown), shown)


def check_inert(body: str) -> None:
    """The structural checks every body must pass."""
    check_tables(body)
    check_html(body)
    check_no_pings(body)
