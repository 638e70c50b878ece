"""Progress lines on stderr while a review runs: each tool as it starts and as it ends, with
its time. Only for a person at a terminal (`reviewbot review` decides); a log gets none."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from bot.model import ToolRun, ToolStatus

ENDED: dict[ToolStatus, str] = {"ok": "done", "failed": "failed", "timeout": "timed out",
                                "missing": "not installed", "skipped": "skipped"}


def started(name: str) -> str:
    return f"reviewbot: {name}: running"


def finished(run: ToolRun) -> str:
    took = f" in {run.seconds:.1f}s" if run.seconds is not None else ""
    return f"reviewbot: {run.name}: {ENDED[run.status]}{took}"


def printer(stream: TextIO) -> Callable[[str, ToolRun | None], None]:
    """The pipeline's progress listener (`ReviewOptions.progress`), writing to `stream`."""
    def tell(name: str, run: ToolRun | None) -> None:
        stream.write((started(name) if run is None else finished(run)) + "\n")
        stream.flush()
    return tell
