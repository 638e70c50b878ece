"""The files and lines a review writes besides the forge, checked the same way everywhere:
SARIF and the Code Quality report (rendered together by `bot.render.files`, written here in
one pass), and why the gate did not pass."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from bot import atomic
from bot.errors import BotError, Exit
from bot.model import ReviewResult
from bot.options import Delivery
from bot.publishing.gate import Gate
from bot.render.files import Output, rendered


def writable_output(path: Path | None, flag: str) -> None:
    """Refuse an output file that cannot be written before any work is done."""
    if path is None:
        return
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise BotError(f"{flag} {path}: is a folder; name a file")
    if not folder.is_dir():
        raise BotError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BotError(f"{flag} {path}: the folder {folder} is not writable")


@contextlib.contextmanager
def writing(path: Path, flag: str) -> Iterator[None]:
    """An output file written inside: a write that fails (after `writable_output` let it
    through: a full disk, a folder removed meanwhile) is a usage error naming the option."""
    try:
        yield
    except OSError as exc:
        raise BotError(f"{flag} {path}: cannot write: {exc.strerror or exc}") from exc


def writable(delivery: Delivery) -> None:
    """Refuse an output file `delivery` asks for that cannot be written, before any work."""
    writable_output(delivery.sarif, "--sarif")
    writable_output(delivery.code_quality, "--code-quality")


def write(outputs: Sequence[Output]) -> None:
    """Each output written whole (atomically), in one pass."""
    for output in outputs:
        with writing(output.path, output.flag):
            atomic.write(output.path, output.data)


def write_sarif(path: Path | None, result: ReviewResult) -> None:
    write(rendered(result, sarif=path))


def report_gate(gate: Gate) -> None:
    """Say on stderr why the change was not fully checked (stdout may be JSON): what a
    terminal shows about the gate beyond the findings."""
    if not gate.unchecked:
        return
    head = ("the gate fails: the change could not be fully checked" if gate.exit == Exit.UNCHECKED
            else "the change could not be fully checked")
    if gate.tool_errors == "warn":
        head += " (tool-errors: warn: reported, not gated)"
    for line in (head, *(f"  - {u}" for u in gate.unchecked)):
        print(f"reviewbot: {line}", file=sys.stderr)
