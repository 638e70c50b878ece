"""The files a review writes besides the forge (SARIF, GitLab's Code Quality report), rendered
together from one result. Pure: writing them is the publishing wing's (`bot.publishing.outputs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.model import ReviewResult


@dataclass(frozen=True)
class Output:
    path: Path
    flag: str  # the option that named it, for the message when it cannot be written
    data: bytes


def rendered(result: ReviewResult, sarif: Path | None = None,
             code_quality: Path | None = None) -> tuple[Output, ...]:
    """Every output file asked for (a path given), rendered from the one result."""
    out = []
    # Imported only when asked for: a review without the file skips its renderer.
    if sarif is not None:
        from bot.render import sarif as sarif_log

        out.append(Output(sarif, "--sarif", sarif_log.dumps(result)))
    if code_quality is not None:
        from bot.render import codequality

        out.append(Output(code_quality, "--code-quality", codequality.dumps(result)))
    return tuple(out)
