"""Reading a format from given output: what a tool printed, as `proc.Result` holds it."""

from __future__ import annotations

from pathlib import Path

from bot import proc
from bot.linters.formats import Context, reader
from bot.model import Finding


def read(fmt: str, root: Path, out: str, err: str = "", pattern: str = "") -> list[Finding]:
    result = proc.Result(("tool",), 0, out.encode("utf-8"), err.encode("utf-8"))
    return list(reader(fmt)(result, Context("mine", root, ".", "safe", pattern)))
