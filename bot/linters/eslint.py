"""ESLint (`-f json-with-metadata`, read as it streams): file scope; `fix` is a safe fix,
`suggestions` unsafe."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot import proc
from bot.analyzer import Target
from bot.errors import GarbageOutput
from bot.linters.base import (
    LinterSpec,
    Unit,
    build,
    json_events,
    relpath,
    version_tuple,
)
from bot.model import Applicability, Edit, Finding, Fix, Severity, Span
from bot.positions import LineIndex, utf16_to_column
from bot.toolpath import npm_version

JS_EXTENSIONS = frozenset({".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"})
CONFIG_FILES = (
    *(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts")),
    ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml", ".eslintrc",
)


def command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-f", "json-with-metadata", "--no-warn-ignored", "--", *unit.paths]


def _edit(path: str, lines: LineIndex, raw: dict[str, object]) -> Edit:
    rng = raw["range"]
    assert isinstance(rng, list) and len(rng) == 2
    start, end = int(rng[0]), int(rng[1])
    # ESLint ranges are JavaScript string indices: UTF-16 code units from the file start.
    return Edit(path, lines.span(start, end), str(raw.get("text") or ""))


def _fix(path: str, lines: LineIndex, message: dict[str, object]) -> Fix | None:
    fix = message.get("fix")
    if isinstance(fix, dict):
        return Fix(f"eslint --fix ({message.get('ruleId')})", (_edit(path, lines, fix),), Applicability.SAFE)
    suggestions = message.get("suggestions")
    if isinstance(suggestions, list) and suggestions and isinstance(suggestions[0], dict):
        first = suggestions[0]
        return Fix(str(first.get("desc") or "suggestion"), (_edit(path, lines, first["fix"]),),
                   Applicability.UNSAFE)
    return None


def _column(lines: list[str], line: int, column: int) -> int:
    text = lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""
    return utf16_to_column(text, column - 1)


def _urls(result: proc.Result) -> dict[str, str]:
    """Each rule's docs URL, from the metadata that follows the results."""
    import ijson  # type: ignore[import-untyped]  # here: a review without ESLint skips it

    urls: dict[str, str] = {}
    with result.stream() as stream:
        try:
            for rule, meta in ijson.kvitems(stream, "metadata.rulesMeta"):
                url = (meta.get("docs") or {}).get("url") if isinstance(meta, dict) else None
                if url:
                    urls[str(rule)] = str(url)
        except ijson.JSONError as exc:
            raise GarbageOutput(f"not JSON: {exc}") from exc
    return urls


def _messages(result: proc.Result) -> Iterator[tuple[str, dict[str, Any]]]:
    """(file path, message) for each message, one at a time: a file with a million messages
    is never held whole."""
    seen = False
    path: str | None = None
    with result.stream() as stream:
        events = json_events(stream)
        for prefix, event, value in events:
            if prefix == "results" and event == "start_array":
                seen = True
            elif prefix == "results.item.filePath":
                path = str(value)
            elif prefix == "results.item.messages.item" and event == "start_map":
                if path is None:
                    raise GarbageOutput("a message before its filePath")
                yield path, build(events, event, value)
            elif prefix == "results.item" and event == "end_map":
                path = None
    if not seen:
        raise GarbageOutput("expected {results, metadata}")


def parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    urls = _urls(result)
    sources: dict[str, LineIndex] = {}
    paths: dict[str, str | None] = {}  # resolving a path costs system calls: once per file
    for file_path, message in _messages(result):
        if file_path not in paths:
            paths[file_path] = relpath(target.root, file_path, unit.cwd)
        path = paths[file_path]
        if path is None:
            continue
        if path not in sources:
            # The output's `source` comes after the messages; the file is what ESLint read.
            try:
                text = (target.root / path).read_text("utf-8", "replace")
            except OSError:
                text = ""
            sources[path] = LineIndex(text, "utf16")
        source = sources[path]
        lines = source.lines
        rule = message.get("ruleId") or ("parse-error" if message.get("fatal") else "eslint")
        line = int(message.get("line") or 1)
        end_line = int(message.get("endLine") or line)
        column = _column(lines, line, int(message.get("column") or 1))
        end_column = _column(lines, end_line, int(message.get("endColumn") or column + 1))
        severity = Severity.ERROR if message.get("severity") == 2 else Severity.WARNING
        yield Finding("eslint", str(rule), severity, str(message["message"]), path,
                      Span(line, column, end_line, end_column), urls.get(str(rule)),
                      _fix(path, source, message), message.get("line") is None)


def pairs_with(root: Path) -> bool:
    """False for a root config that loads typescript-eslint and names no tsconfigRootDir:
    typescript-eslint 8 takes the folder of every config that loads it as a candidate root and
    fails each file's parse when one run loaded two (both revisions' configs)."""
    for name in CONFIG_FILES:
        try:
            text = (root / name).read_text("utf-8", "replace")
        except OSError:
            continue
        if "typescript-eslint" in text and "tsconfigRootDir" not in text:
            return False
    return True


SPEC = LinterSpec(
    name="eslint",
    extensions=JS_EXTENSIONS,
    executables=("eslint",),
    install_hint="npm install --save-dev eslint (or scripts/install-tools.sh)",
    config_files=CONFIG_FILES,
    command=command,
    parse=parse,
    read_version=lambda exe: npm_version(exe, "eslint"),
    # ESLint 10 looks a file's flat config up from the file: one run lints both revisions.
    # (ESLint 9 resolves it from the working folder and ignores files outside it.)
    for_version=lambda spec, version: replace(spec, pairable=version_tuple(version) >= (10,)),
    pairs_with=pairs_with,
    memory_heavy=True,  # hundreds of MB on a large change: beside another only where memory allows
)


def has_config(root: Path) -> bool:
    return any((root / name).is_file() for name in CONFIG_FILES)
