"""Readers for the output formats any linter may print (SARIF, rdjson, rdjsonl, checkstyle, a
regular expression): each turns a finished run's output into `Finding`s as it streams, and
raises `GarbageOutput` for output that is not the format.

`Context` is what they share: the tool's name, where reported paths are relative to, how
columns are converted (each format counts them its own way; the model counts code points),
and how much the fixes a tool offers are trusted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot import proc
from bot.linters.base import relpath
from bot.model import Applicability, Finding, Severity
from bot.positions import byte_to_column, split_lines, uri_to_path, utf16_to_column


@dataclass
class Context:
    tool: str
    root: Path
    cwd: str = "."
    # How far the fixes read are trusted: safe (review --fix applies them), unsafe (offered
    # as suggestions, applied only with --unsafe-fixes); None drops them.
    applicability: Applicability | None = Applicability.UNSAFE
    pattern: str = ""  # the `regex` format's expression
    _paths: dict[str, str | None] = field(default_factory=dict)
    _lines: dict[str, list[str]] = field(default_factory=dict)

    def path(self, reported: str) -> str | None:
        """The repository path of a reported path or file URI; None outside the checkout."""
        if reported not in self._paths:
            name = str(uri_to_path(reported)) if reported.startswith("file:") else reported
            self._paths[reported] = relpath(self.root, name, self.cwd) if name else None
        return self._paths[reported]

    def line(self, path: str, number: int) -> str:
        """Line `number` (1-based) of the file, ending kept; "" past its end or when unreadable."""
        if path not in self._lines:
            try:
                text = (self.root / path).read_text("utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[path] = split_lines(text)
        lines = self._lines[path]
        return lines[number - 1] if 0 < number <= len(lines) else ""

    def from_bytes(self, path: str, line: int, column: int) -> int:
        """A 1-based UTF-8 byte column as a code-point column."""
        text = self.line(path, line)
        return byte_to_column(text, column - 1) if text and column > 1 else max(column, 1)

    def from_utf16(self, path: str, line: int, column: int) -> int:
        """A 1-based UTF-16 code unit column as a code-point column."""
        text = self.line(path, line)
        return utf16_to_column(text, column - 1) if text and column > 1 else max(column, 1)


def severity(text: object, default: Severity = Severity.WARNING) -> Severity:
    try:
        return Severity.parse(str(text)) if text not in (None, "") else default
    except KeyError:
        return default


Reader = Callable[[proc.Result, Context], Iterator[Finding]]


def reader(name: str) -> Reader:
    """The reader of format `name` (one of `bot.config.FORMATS`), imported on first use."""
    from bot.linters.formats import checkstyle, rdjson, regex, sarif

    readers: dict[str, Reader] = {"sarif": sarif.read, "rdjson": rdjson.read,
                                  "rdjsonl": rdjson.read_lines, "checkstyle": checkstyle.read,
                                  "regex": regex.read}
    return readers[name]
