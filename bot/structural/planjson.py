"""A plan as a JSON document, both ways. Reading validates the whole document first.

A plan file is input: every field is checked for its type and range, every path for being a
clean relative path, and the first problem is reported with the field that has it
(`plan.json: files[2].edits[0].start: expected an integer`), before anything is written.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from pathlib import Path
from typing import Any, NoReturn

from bot import atomic, codec
from bot.errors import BotError, Exit
from bot.model import Span
from bot.structural.planpath import lexical_problem
from bot.structural.plantypes import PLAN_VERSION, Plan, PlannedEdit, PlannedFile

_HEX64 = re.compile(r"[0-9a-f]{64}")


def to_json(plan: Plan) -> dict[str, Any]:
    return {
        "version": PLAN_VERSION,
        "tool": "reviewbot ast-edit",
        "root": plan.root,
        "lang": plan.lang,
        "pattern": plan.pattern,
        "rewrite": plan.rewrite,
        "count": plan.count,
        "skipped_overlaps": plan.skipped_overlaps,
        "files": [
            {
                "path": f.path,
                "sha256": f.sha256,
                "size": f.size,
                "sha256_after": f.sha256_after,
                "eol": "crlf" if f.eol == "\r\n" else "lf",
                "edits": [
                    {"start": e.start, "end": e.end,
                     "range": {"start": {"line": e.span.line, "column": e.span.column},
                               "end": {"line": e.span.end_line, "column": e.span.end_column}},
                     "old": e.old, "new": e.new, "bindings": e.bindings}
                    for e in f.edits
                ],
            }
            for f in plan.files
        ],
    }


class _Reader:
    """Field access that names the field in every complaint."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> NoReturn:
        raise BotError(f"{self.source}: {where}: {problem}; nothing written (stage the plan "
                       "again)", Exit.USAGE)

    def get(self, obj: dict[str, Any], key: str, where: str) -> Any:
        if key not in obj:
            self.fail(_join(where, key), "missing")
        return obj[key]

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(where, f"expected an object, got {_kind(value)}")
        return value

    def items(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(where, f"expected a list, got {_kind(value)}")
        return value

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            self.fail(where, f"expected a string, got {_kind(value)}")
        return value

    def integer(self, value: Any, where: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(where, f"expected an integer, got {_kind(value)}")
        if value < minimum:
            self.fail(where, "expected a " + ("positive" if minimum else "non-negative")
                      + f" integer, got {value}")
        return value

    def hex64(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not _HEX64.fullmatch(value):
            self.fail(where, "expected 64 hexadecimal digits (a SHA-256 in lower case)")
        return value


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def from_json(data: Any, source: str = "plan") -> Plan:
    """The plan in `data`, or BotError(Exit.USAGE) naming the first field that is wrong."""
    rd = _Reader(source)
    doc = rd.mapping(data, "the document")
    version = doc.get("version")
    if version != PLAN_VERSION or isinstance(version, bool):
        raise BotError(f"{source}: version {version!r} is not supported (this reviewbot "
                       f"writes version {PLAN_VERSION})", Exit.USAGE)
    root = rd.text(rd.get(doc, "root", ""), "root")
    if "\x00" in root or not os.path.isabs(root):
        rd.fail("root", f"expected an absolute path, got {root!r}")
    texts = [rd.text(rd.get(doc, key, ""), key) for key in ("lang", "pattern", "rewrite")]
    skipped = rd.integer(doc.get("skipped_overlaps", 0), "skipped_overlaps")
    if "count" in doc:
        rd.integer(doc["count"], "count")
    files: list[PlannedFile] = []
    seen: dict[str, str] = {}
    for index, value in enumerate(rd.items(rd.get(doc, "files", ""), "files")):
        where = f"files[{index}]"
        planned = _file(rd, rd.mapping(value, where), where)
        if planned.path in seen:
            rd.fail(f"{where}.path", f"{planned.path!r} is already planned (as {seen[planned.path]})")
        seen[planned.path] = where
        files.append(planned)
    return Plan(root, texts[0], texts[1], texts[2], tuple(files), skipped)


def _file(rd: _Reader, f: dict[str, Any], where: str) -> PlannedFile:
    path = rd.text(rd.get(f, "path", where), f"{where}.path")
    problem = lexical_problem(path)
    if problem:
        rd.fail(f"{where}.path", f"{path!r} {problem}")
    digest = rd.hex64(rd.get(f, "sha256", where), f"{where}.sha256")
    size = rd.integer(rd.get(f, "size", where), f"{where}.size")
    after = rd.hex64(rd.get(f, "sha256_after", where), f"{where}.sha256_after")
    eol = f.get("eol", "lf")
    if eol not in ("lf", "crlf"):
        rd.fail(f"{where}.eol", f"expected 'lf' or 'crlf', got {eol!r}")
    edits = [_edit(rd, rd.mapping(e, f"{where}.edits[{i}]"), f"{where}.edits[{i}]", size)
             for i, e in enumerate(rd.items(rd.get(f, "edits", where), f"{where}.edits"))]
    order = sorted(range(len(edits)), key=lambda i: (edits[i].start, edits[i].end))
    for first, second in itertools.pairwise(order):
        if edits[second].start < edits[first].end:
            rd.fail(f"{where}.edits[{max(first, second)}]",
                    f"overlaps {where}.edits[{min(first, second)}]")
    return PlannedFile(path, digest, size, after, "\r\n" if eol == "crlf" else "\n", tuple(edits))


def _edit(rd: _Reader, e: dict[str, Any], where: str, size: int) -> PlannedEdit:
    start = rd.integer(rd.get(e, "start", where), f"{where}.start")
    end = rd.integer(rd.get(e, "end", where), f"{where}.end")
    if end > size:
        rd.fail(f"{where}.end", f"{end} is past the end of the file ({size} bytes)")
    if start > end:
        rd.fail(where, f"start {start} is after end {end}")
    span = _span(rd, rd.mapping(rd.get(e, "range", where), f"{where}.range"), f"{where}.range")
    old = rd.text(rd.get(e, "old", where), f"{where}.old")
    new = rd.text(rd.get(e, "new", where), f"{where}.new")
    try:
        new.encode()
    except UnicodeEncodeError:
        rd.fail(f"{where}.new", "not valid Unicode (a lone surrogate)")
    raw = rd.mapping(e.get("bindings", {}), f"{where}.bindings")
    bindings = {k: rd.text(v, f"{where}.bindings.{k}") for k, v in raw.items()}
    return PlannedEdit(start, end, span, old, new, bindings)


def _span(rd: _Reader, r: dict[str, Any], where: str) -> Span:
    points = []
    for key in ("start", "end"):
        point = rd.mapping(rd.get(r, key, where), f"{where}.{key}")
        points += [rd.integer(rd.get(point, part, f"{where}.{key}"), f"{where}.{key}.{part}", 1)
                   for part in ("line", "column")]
    return Span(*points)


def save(plan: Plan, path: Path) -> None:
    # A file name that is not UTF-8 is written as \u escapes, which read back as the same name.
    text = codec.json_text(to_json(plan), indent=2) + "\n"
    atomic.write(path, text.encode(), sync=True)


def load(path: Path) -> Plan:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BotError(f"{path}: no such plan file") from exc
    except RecursionError as exc:
        raise BotError(f"{path}: not a reviewbot plan (nested too deeply)") from exc
    except (OSError, ValueError) as exc:
        raise BotError(f"{path}: cannot read the plan: {exc}") from exc
    return from_json(data, str(path))
