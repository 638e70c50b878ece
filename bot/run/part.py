"""One shard's part of an analysis (`reviewbot analyze --shard I/N`): the findings it computed
at both revisions, before any verdict, with what the classifier reads of the files they sit
in (both revisions' texts and the line map). Verdicts match findings across files (code moved
between files, a definition found again elsewhere), so they are given once every part is in
(`bot.run.assemble`), never per shard.

The JSON shape (the artifact's `shard` key, `bot/schemas/analysis-v1.schema.json`):
`{"index", "count", "plan", "base": [finding], "head": [finding], "unbaselined": [[tool,
path]], "files": {"base": {path: text}, "head": {path: text}}, "maps": {head path: {"head_count",
"same": [[base line, head line, count]], "modified": [[base line, head line]], "status": [[head
line, status]], "gaps": [head line]}}}`. Decoding checks every field (untrusted input).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot import codec
from bot.errors import CodecError
from bot.model import Finding
from bot.positions import split_lines
from bot.revisions.diff import ADDED, MODIFIED, UNCHANGED, WS_CHANGED, LineMap
from bot.revisions.evidence import Evidence, FileSide

PART_KEYS = ("index", "count", "plan", "base", "head", "unbaselined", "files", "maps")
MAP_KEYS = ("head_count", "same", "modified", "status", "gaps")
FILES_KEYS = ("base", "head")
STATUSES = (WS_CHANGED, MODIFIED, ADDED)  # a line not listed is unchanged
MAX_SHARDS = 256


@dataclass(frozen=True)
class Part:
    index: int
    count: int
    plan: str  # bot.run.shards.plan_id: equal in every part of one analysis
    base: tuple[Finding, ...]
    head: tuple[Finding, ...]
    unbaselined: frozenset[tuple[str, str]]
    # The files and line maps of these findings. Its pairing is not carried: the artifact's
    # file changes say it, and the publisher pairs the parts' evidence by them (bot.run.assemble).
    evidence: Evidence


def of(index: int, count: int, plan: str, base: Sequence[Finding], head: Sequence[Finding],
       unbaselined: frozenset[tuple[str, str]], evidence: Evidence) -> Part:
    """A part carrying, of the change's evidence, what the classifier reads for these findings
    (`Evidence.carrying`), its pairing left to the artifact's file changes."""
    carried = evidence.carrying((f.path for f in head), (f.path for f in base))
    return Part(index, count, plan, tuple(base), tuple(head), unbaselined,
                Evidence(maps=carried.maps, base_files=carried.base_files,
                         head_files=carried.head_files))


# --- writing --------------------------------------------------------------------------------

def encode(part: Part) -> dict[str, Any]:
    evidence = part.evidence
    return {
        "index": part.index, "count": part.count, "plan": part.plan,
        "base": codec.encode_findings(sorted(part.base, key=Finding.sort_key)),
        "head": codec.encode_findings(sorted(part.head, key=Finding.sort_key)),
        "unbaselined": [list(pair) for pair in sorted(part.unbaselined)],
        "files": {"base": {p: "".join(s.lines) for p, s in sorted(evidence.base_files.items())},
                  "head": {p: "".join(s.lines) for p, s in sorted(evidence.head_files.items())}},
        "maps": {p: _encode_map(lm) for p, lm in sorted(evidence.maps.items())},
    }


def _encode_map(lm: LineMap) -> dict[str, Any]:
    same: list[list[int]] = []
    for b, h in sorted(lm.base_to_head.items()):
        if same and same[-1][0] + same[-1][2] == b and same[-1][1] + same[-1][2] == h:
            same[-1][2] += 1
        else:
            same.append([b, h, 1])
    return {"head_count": lm.head_count, "same": same,
            "modified": [[b, h] for b, h in sorted(lm.base_to_head_mod.items())],
            "status": [[h, s] for h, s in sorted(lm.status.items()) if s != UNCHANGED],
            "gaps": list(lm.gaps)}


# --- reading --------------------------------------------------------------------------------

def decode(raw: object, path: str, max_lines: int) -> Part:
    """A part from untrusted JSON; `codec.CodecError` names the field that is wrong."""
    obj = codec.Fields(raw, path, PART_KEYS)
    count = _bounded(obj.raw["count"], obj.at("count"), MAX_SHARDS)
    index = _bounded(obj.raw["index"], obj.at("index"), count)
    plan = obj.text("plan")
    files = codec.Fields(obj.raw["files"], obj.at("files"), FILES_KEYS)
    base_files = _files(files.raw["base"], files.at("base"), max_lines)
    head_files = _files(files.raw["head"], files.at("head"), max_lines)
    maps_raw = obj.raw["maps"]
    if not isinstance(maps_raw, dict):
        raise CodecError(obj.at("maps"), "expected an object")
    maps = {p: _map(v, f"{obj.at('maps')}[{p[:200]!r}]", head_files.get(p), max_lines)
            for p, v in maps_raw.items()}
    unbaselined = frozenset(_pair(item, where) for item, where in obj.items("unbaselined"))
    return Part(index, count, plan, codec.decode_findings(obj.raw["base"], obj.at("base")),
                codec.decode_findings(obj.raw["head"], obj.at("head")), unbaselined,
                Evidence(maps=maps, base_files=base_files, head_files=head_files))


def _bounded(value: object, field: str, top: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
        raise CodecError(field, f"expected an integer from 1 to {top}")
    return value


def _files(raw: object, field: str, max_lines: int) -> dict[str, FileSide]:
    if not isinstance(raw, dict):
        raise CodecError(field, "expected an object")
    out = {}
    for path, text in raw.items():
        if not isinstance(text, str):
            raise CodecError(f"{field}[{path[:200]!r}]", "expected the file's text")
        lines = split_lines(text)
        if len(lines) > max_lines:
            raise CodecError(f"{field}[{path[:200]!r}]", f"more than {max_lines} lines")
        out[path] = FileSide(tuple(lines))
    return out


def _pair(raw: object, field: str) -> tuple[str, str]:
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(x, str) for x in raw):
        raise CodecError(field, "expected a [tool, path] pair")
    return raw[0], raw[1]


def _map(raw: object, field: str, head: FileSide | None, max_lines: int) -> LineMap:
    obj = codec.Fields(raw, field, MAP_KEYS)
    if head is None:  # its size is what bounds the map's
        raise CodecError(field, "a line map without its head file in files.head")
    count = obj.raw["head_count"]
    if count != len(head.lines) or isinstance(count, bool):
        raise CodecError(obj.at("head_count"), "expected the head file's line count")

    def line(value: object, where: str, top: int = max_lines) -> int:
        return _bounded(value, where, max(top, 1))

    lm = LineMap(count)
    for item, where in obj.items("same"):
        if not isinstance(item, list) or len(item) != 3:
            raise CodecError(where, "expected [base line, head line, count]")
        b, h = line(item[0], f"{where}[0]"), line(item[1], f"{where}[1]", count)
        n = line(item[2], f"{where}[2]", count - h + 1)
        lm.base_to_head.update((b + k, h + k) for k in range(n))
    for item, where in obj.items("modified"):
        if not isinstance(item, list) or len(item) != 2:
            raise CodecError(where, "expected [base line, head line]")
        lm.base_to_head_mod[line(item[0], f"{where}[0]")] = line(item[1], f"{where}[1]", count)
    for item, where in obj.items("status"):
        if not isinstance(item, list) or len(item) != 2:
            raise CodecError(where, "expected [head line, status]")
        if item[1] not in STATUSES:
            raise CodecError(f"{where}[1]", f"expected one of {', '.join(STATUSES)}")
        lm.status[line(item[0], f"{where}[0]", count)] = item[1]
    lm.gaps = [line(item, where, count + 1) for item, where in obj.items("gaps")]
    return lm
