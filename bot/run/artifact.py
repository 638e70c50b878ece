"""The analysis artifact: one review of a change as data, written by `reviewbot analyze` (no
token) and read by a publisher (a token, no checkout), possibly as several shards of one
analysis merged together.

The document is JSON (`kind: reviewbot-analysis`, `version: 1`) with the JSON Schema
`bot/schemas/analysis-v1.schema.json`. The review result is `bot.codec`'s shape; `texts`
holds, per path with findings to show, the file's line count and only the lines code frames
and suggestions read (`bot.run.excerpt`). A loaded artifact is untrusted: the byte cap is checked
before parsing, and every field (shapes, shas, repository, clean relative paths, positive
lines) is checked before anything uses it; each refusal names the field and why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from bot import codec
from bot.errors import ArtifactError, CodecError
from bot.model import FileChange, Finding, ReviewResult, ToolRun, Verdict
from bot.revisions.workspace import SIZE_LIMIT
from bot.run import excerpt
from bot.run import part as shard_part
from bot.run.excerpt import Excerpt

if TYPE_CHECKING:
    import jsonschema

KIND = "reviewbot-analysis"
VERSION = 1
MAX_BYTES = 10_000_000
SCHEMA = "analysis-v1.schema.json"
# A file over workspace.SIZE_LIMIT is not analysed, so no file shown has more lines than this;
# renderers walk every line of a frame's file, so an untrusted count must stay bounded.
MAX_LINE_COUNT = SIZE_LIMIT + 1
SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1, or SHA-256 repositories
# owner/name (GitLab: group/subgroup/name); no segment is "." or "..".
REPOSITORY = re.compile(r"(?!\.\.?(?:/|$))[A-Za-z0-9_.-]+(?:/(?!\.\.?(?:/|$))[A-Za-z0-9_.-]+)+")
LINE_KEY = re.compile(r"[1-9][0-9]*")
TOP_KEYS = ("kind", "version", "repository", "number", "base_sha", "head_sha", "merge_base",
            "target_ref", "result", "texts")
TOP_OPTIONAL = ("shard", "offer", "next")  # shard: only in a shard's part (bot.run.part)
NEXT_KEYS = ("kind", "plan", "tree", "result")
PLAN_ID = re.compile(r"[0-9a-f]{12}")
EXCERPT_KEYS = ("line_count", "lines")
T = TypeVar("T")


@dataclass(frozen=True)
class Next:
    """The review of the commit a `/fix`, `/apply` or the apply label will make: analyze
    built its tree from the plan over git objects and ran the linters on it. Publish makes the
    commit itself and uses this review only when the commit's tree is `tree` and its plan is
    `plan`; `result.head` is analyze's stand-in commit, replaced by publish's."""

    kind: Literal["apply", "fix"]
    plan: str  # the plan's id (bot.apply.plan)
    tree: str  # the tree id of the commit
    result: ReviewResult


@dataclass(frozen=True)
class Analysis:
    """One analysed change. `repository` (owner/name) and `number` are None outside a pull
    request whose forge is known; `base_sha` is the target's commit the head was compared
    against (the merge base is `result.merge_base`); `texts` maps each path with findings to
    show to its head lines (an `Excerpt` once loaded)."""

    repository: str | None
    number: int | None
    base_sha: str
    head_sha: str
    target_ref: str
    result: ReviewResult
    texts: Mapping[str, Sequence[str]]
    # A shard's part: its findings wait for the other parts' to be classified (bot.run.assemble),
    # and `result` holds no verdicts meanwhile.
    part: shard_part.Part | None = None
    # The id of the plan analyze saw at the head (the rules' fixes and the linters' safe
    # fixes, `bot.apply.plan`): publish re-derives its own and says when they differ.
    offer: str | None = None
    next: Next | None = None  # the review of the commit the event's command or label makes

    @property
    def merge_base(self) -> str:
        return self.result.merge_base


def build(result: ReviewResult, texts: Mapping[str, Sequence[str]], *, repository: str | None,
          number: int | None, base_sha: str, target_ref: str) -> Analysis:
    """The analysis of `result`, keeping of the full head `texts` only what renderers read."""
    return Analysis(repository, number, base_sha, result.head, target_ref, result,
                    excerpt.needed(result, texts))


# --- writing --------------------------------------------------------------------------------

def encode(analysis: Analysis) -> dict[str, Any]:
    return {
        "kind": KIND, "version": VERSION, "repository": analysis.repository,
        "number": analysis.number, "base_sha": analysis.base_sha, "head_sha": analysis.head_sha,
        "merge_base": analysis.merge_base, "target_ref": analysis.target_ref,
        "result": codec.encode_result(analysis.result),
        "texts": {path: _encode_lines(lines) for path, lines in sorted(analysis.texts.items())},
    } | ({"shard": shard_part.encode(analysis.part)} if analysis.part is not None else {}) \
      | ({"offer": {"plan": analysis.offer}} if analysis.offer is not None else {}) \
      | ({"next": _encode_next(analysis.next)} if analysis.next is not None else {})


def _encode_next(after: Next) -> dict[str, Any]:
    return {"kind": after.kind, "plan": after.plan, "tree": after.tree,
            "result": codec.encode_result(after.result)}


def _encode_lines(lines: Sequence[str]) -> dict[str, Any]:
    known = lines.known if isinstance(lines, Excerpt) else dict(enumerate(lines, 1))
    return {"line_count": len(lines), "lines": {str(n): text for n, text in sorted(known.items())}}


def dump(analysis: Analysis) -> bytes:
    """The artifact's bytes; refuses (ArtifactError) what `load` would refuse, so a written
    artifact is always readable."""
    doc = encode(analysis)
    # ASCII: a line or a path may hold a lone surrogate (a name that is not UTF-8), which JSON
    # can carry only as an escape.
    data = (json.dumps(doc, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
    # The checks load makes, but not the schema's: that what is written validates is tested,
    # and jsonschema costs about two seconds per megabyte.
    _decode(doc, schema=False)
    return data


# --- reading --------------------------------------------------------------------------------

def load(data: bytes, *, max_bytes: int = MAX_BYTES) -> Analysis:
    if len(data) > max_bytes:
        raise ArtifactError("artifact", f"{len(data)} bytes, over the limit of {max_bytes}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArtifactError("artifact", f"not UTF-8 (byte {exc.start})") from None
    try:
        raw = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:
        raise ArtifactError("artifact", "nested too deeply") from None
    except ValueError as exc:
        raise ArtifactError("artifact", f"not JSON: {exc}") from None
    return _decode(raw, schema=True)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key[:80]!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _decode(raw: object, *, schema: bool) -> Analysis:
    if not isinstance(raw, dict):
        raise ArtifactError("artifact", "expected a JSON object")
    if raw.get("kind") != KIND:
        raise ArtifactError("kind", f"expected {KIND!r}, not {raw.get('kind')!r}")
    if raw.get("version") != VERSION:
        raise ArtifactError("version", f"this reviewbot reads version {VERSION}, "
                                       f"not {raw.get('version')!r}")
    try:
        top = codec.Fields(raw, "", TOP_KEYS, TOP_OPTIONAL)
        result = codec.decode_result(raw["result"], "result")
        texts = _decode_texts(raw["texts"])
        shard = shard_part.decode(raw["shard"], "shard", MAX_LINE_COUNT) if "shard" in raw else None
        analysis = Analysis(_repository(top), _number(top), _sha(top.text("base_sha"), "base_sha"),
                            _sha(top.text("head_sha"), "head_sha"), top.text("target_ref"), result,
                            texts, shard, _offer(raw["offer"]) if "offer" in raw else None,
                            _next(raw["next"]) if "next" in raw else None)
        merge_base = _sha(top.text("merge_base"), "merge_base")
    except CodecError as exc:
        raise ArtifactError(exc.path, exc.why) from None
    _check_result(analysis, raw["result"])
    if analysis.next is not None:
        _check_next(analysis.next, analysis.merge_base, raw["next"]["result"])
    if merge_base != result.merge_base:
        raise ArtifactError("merge_base", "differs from result.merge_base")
    if schema and canonical(encode(analysis)) != canonical(raw):
        # The schema costs about two seconds per megabyte. A document that is exactly what
        # `dump` writes for what was read validates (tested), so only another one needs it.
        _check_schema(raw)
    return analysis


def _offer(raw: object) -> str:
    obj = codec.Fields(raw, "offer", ("plan",))
    plan = obj.text("plan")
    if not PLAN_ID.fullmatch(plan):
        raise ArtifactError(obj.at("plan"), f"expected a plan id (12 hex digits), not {plan[:80]!r}")
    return plan


def _next(raw: object) -> Next:
    obj = codec.Fields(raw, "next", NEXT_KEYS)
    plan = obj.text("plan")
    if not PLAN_ID.fullmatch(plan):
        raise ArtifactError(obj.at("plan"), f"expected a plan id (12 hex digits), not {plan[:80]!r}")
    return Next(obj.choice("kind", ("apply", "fix")), plan, _sha(obj.text("tree"), "next.tree"),
                codec.decode_result(obj.raw["result"], "next.result"))


def _check_next(after: Next, merge_base: str, raw: Mapping[str, Any]) -> None:
    result = after.result
    _sha(result.head, "next.result.head")
    if result.merge_base != merge_base:
        raise ArtifactError("next.result.merge_base", "differs from the analysis's merge base")
    _check_paths(result, raw, "next.result")


def canonical(doc: object) -> str:
    """One text per JSON value: keys sorted, and `true`, `1` and `1.0` told apart."""
    return json.dumps(doc, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def _repository(top: codec.Fields) -> str | None:
    value = top.optional_text("repository")
    if value is not None and not REPOSITORY.fullmatch(value):
        raise ArtifactError("repository", f"expected owner/name, not {value!r}")
    return value


def _number(top: codec.Fields) -> int | None:
    return None if top.raw["number"] is None else top.positive("number")


def _sha(value: str, field: str) -> str:
    if not SHA.fullmatch(value):
        raise ArtifactError(field, f"expected a full commit sha (40 hex digits), not {value[:80]!r}")
    return value


def path_problem(path: str) -> str | None:
    """Why `path` is not a clean repository-relative POSIX path, or None when it is."""
    if not path:
        return "empty"
    if "\0" in path:
        return "contains a NUL character"
    if "\\" in path:
        return "contains a backslash"
    if path.startswith("/"):
        return "is absolute"
    segments = path.split("/")
    if "" in segments:
        return "has an empty segment"
    if ".." in segments:
        return "has a `..` segment"
    if "." in segments:
        return "has a `.` segment"
    return None


def _path(path: str, field: str) -> None:
    why = path_problem(path)
    if why is not None:
        raise ArtifactError(field, f"{path[:200]!r} {why}: expected a relative POSIX path")


def _check_result(analysis: Analysis, raw: Mapping[str, Any]) -> None:
    result = analysis.result
    _sha(result.merge_base, "result.merge_base")
    _sha(result.head, "result.head")
    if analysis.head_sha != result.head:
        raise ArtifactError("head_sha", "differs from result.head")
    _check_paths(result, raw, "result")
    if analysis.part is not None:
        _check_part(analysis.part)


def _check_paths(result: ReviewResult, raw: Mapping[str, Any], field: str) -> None:
    for name in ("findings", "fixed"):
        for index, verdict in enumerate(getattr(result, name)):
            _check_verdict(verdict, f"{field}.{name}[{index}]")
    for index, change in enumerate(result.changes):
        _path(change.path, f"{field}.changes[{index}].path")
        if change.old_path is not None:
            _path(change.old_path, f"{field}.changes[{index}].old_path")
    for index, path in enumerate(raw["unbaselined"]):
        _path(path, f"{field}.unbaselined[{index}]")


def _check_part(shard: shard_part.Part) -> None:
    for name, findings in (("base", shard.base), ("head", shard.head)):
        for index, finding in enumerate(findings):
            _check_finding(finding, f"shard.{name}[{index}]")
    for index, (_, path) in enumerate(sorted(shard.unbaselined)):
        _path(path, f"shard.unbaselined[{index}]")
    for name, files in (("base", shard.evidence.base_files), ("head", shard.evidence.head_files)):
        for path in files:
            _path(path, f"shard.files.{name}[{path[:200]!r}]")


def _check_verdict(verdict: Verdict, field: str) -> None:
    _check_finding(verdict.finding, field)
    if verdict.base is not None:
        _check_finding(verdict.base, f"{field}.base")


def _check_finding(finding: Finding, field: str) -> None:
    _path(finding.path, f"{field}.path")
    for index, edit in enumerate(finding.fix.edits if finding.fix else ()):
        _path(edit.path, f"{field}.fix.edits[{index}].path")


def _decode_texts(raw: object) -> dict[str, Excerpt]:
    if not isinstance(raw, dict):
        raise ArtifactError("texts", "expected an object")
    out = {}
    for path, value in raw.items():
        field = f"texts[{path[:200]!r}]"
        _path(path, field)
        obj = codec.Fields(value, field, EXCERPT_KEYS)
        size = obj.raw["line_count"]
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_LINE_COUNT:
            raise ArtifactError(obj.at("line_count"), f"expected an integer from 0 to {MAX_LINE_COUNT}")
        lines = obj.raw["lines"]
        if not isinstance(lines, dict):
            raise ArtifactError(obj.at("lines"), "expected an object")
        out[path] = Excerpt(size, {_line(key, text, size, obj.at("lines")): text
                                   for key, text in lines.items()})
    return out


def _line(key: str, text: object, size: int, field: str) -> int:
    at = f"{field}[{key[:20]!r}]"
    if not LINE_KEY.fullmatch(key) or int(key) > size:
        raise ArtifactError(at, f"expected a line number from 1 to the line count {size}")
    if not isinstance(text, str):
        raise ArtifactError(at, "expected a string")
    number = int(key)
    body = text[:-1] if text.endswith("\n") else text
    if "\n" in body or (number < size and not text.endswith("\n")):
        raise ArtifactError(at, "expected one line of the file, with its line ending")
    return number


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the artifact, shipped inside the package."""
    text = resources.files("bot").joinpath("schemas", SCHEMA).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator() -> jsonschema.Draft202012Validator:
    # Imported here: over a second (its format checkers compile grammars), which neither
    # `analyze` nor the publish of an artifact exactly as `analyze` wrote it needs.
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def _check_schema(raw: object) -> None:
    """Last: what the explicit checks above do not name (an unexpected key, ...)."""
    import jsonschema.exceptions

    error = jsonschema.exceptions.best_match(_validator().iter_errors(raw))
    if error is not None:
        raise ArtifactError(_field(error.absolute_path) or "artifact", error.message[:300])


def _field(parts: Sequence[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# --- merging shards -------------------------------------------------------------------------

def merge(parts: Sequence[Analysis]) -> Analysis:
    """Several artifacts of one analysis (shards over a CI matrix) as one. Their identities
    (repository, number, shas, target) must agree; everything else is combined, de-duplicated
    and sorted, so the merge does not depend on the order of the parts."""
    if not parts:
        raise ArtifactError("artifacts", "none to merge")
    first = parts[0]
    for index, part in enumerate(parts[1:], 1):
        for name, mine, theirs in _identity(first, part):
            if mine != theirs:
                raise ArtifactError(f"artifact {index + 1}", f"its {name} {theirs!r} differs from "
                                                             f"artifact 1's {mine!r}: not one analysis")
    results = [p.result for p in parts]
    result = replace(
        first.result,
        tools=_sorted_unique([t for r in results for t in r.tools], _tool_key),
        findings=_sorted_unique([v for r in results for v in r.findings], _verdict_key),
        fixed=_sorted_unique([v for r in results for v in r.fixed], _verdict_key),
        changes=_merge_changes([c for r in results for c in r.changes]),
        notes=tuple(sorted({n for r in results for n in r.notes})),
        unbaselined=frozenset(p for r in results for p in r.unbaselined),
        unchecked=tuple(sorted({u for r in results for u in r.unchecked})),
    )
    return replace(first, result=result, texts=_merge_texts([p.texts for p in parts]))


def _identity(a: Analysis, b: Analysis) -> list[tuple[str, object, object]]:
    return [("repository", a.repository, b.repository), ("number", a.number, b.number),
            ("base sha", a.base_sha, b.base_sha), ("head sha", a.head_sha, b.head_sha),
            ("merge base", a.merge_base, b.merge_base), ("target", a.target_ref, b.target_ref),
            ("result's target", a.result.base_ref, b.result.base_ref),
            ("gate policy", a.result.policy, b.result.policy)]


def _tool_key(run: ToolRun) -> str:
    return json.dumps([run.name, codec.encode_tool_run(run)], sort_keys=True)


def _verdict_key(verdict: Verdict) -> str:
    f = verdict.finding
    return json.dumps([f.path, f.span.line, f.span.column, f.tool, f.rule, verdict.scope,
                       codec.encode_verdict(verdict)], sort_keys=True)


def _sorted_unique(items: Sequence[T], key: Callable[[T], str]) -> tuple[T, ...]:
    return tuple(sorted(dict.fromkeys(items), key=key))


def _merge_changes(changes: Sequence[FileChange]) -> tuple[FileChange, ...]:
    by_path: dict[str, FileChange] = {}
    for change in changes:
        known = by_path.setdefault(change.path, change)
        if known != change:
            raise ArtifactError(f"result.changes {change.path!r}", "differs between artifacts")
    return tuple(by_path[p] for p in sorted(by_path))


def _merge_texts(all_texts: Sequence[Mapping[str, Sequence[str]]]) -> dict[str, Excerpt]:
    sizes: dict[str, int] = {}
    known: dict[str, dict[int, str]] = {}
    for texts in all_texts:
        for path, lines in texts.items():
            if sizes.setdefault(path, len(lines)) != len(lines):
                raise ArtifactError(f"texts[{path!r}]", "the line count differs between artifacts")
            mine = known.setdefault(path, {})
            theirs = lines.known if isinstance(lines, Excerpt) else dict(enumerate(lines, 1))
            for number, text in theirs.items():
                if mine.setdefault(number, text) != text:
                    raise ArtifactError(f"texts[{path!r}].lines[{number}]",
                                        "differs between artifacts")
    return {path: Excerpt(sizes[path], known[path]) for path in sorted(sizes)}
