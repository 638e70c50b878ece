"""The few lines of a file that code frames and suggestions read, standing in for the file.

Pure. `needed` runs the renderers' own readers (`bot.render.markdown.frame_digest`, which reads
what a frame shows, and `bot.render.suggestion.suggest`) over the full head texts and keeps only
the lines they touched; an `Excerpt` is then a `Sequence[str]` as long as the file, so
`bot.publishing.policy.place` and `bot.publishing.summary.render` give the same text from it as from the file.
Lines nobody reads are empty strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.model import ReviewResult
from bot.render.markdown import frame_digest
from bot.render.suggestion import suggest
from bot.run.lineview import LineView


class Excerpt(LineView):
    """A file of `size` lines of which only `known` (1-based line number: text with its line
    ending) are kept."""

    def __init__(self, size: int, known: Mapping[int, str]) -> None:
        self.size = size
        self.known = dict(sorted(known.items()))

    def __len__(self) -> int:
        return self.size

    def line(self, position: int) -> str:
        return self.known.get(position + 1, "")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Excerpt):
            return (self.size, self.known) == (other.size, other.known)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to others by content, like a list

    def __repr__(self) -> str:
        return f"Excerpt({self.size}, {self.known!r})"


class _Reads(LineView):
    """A file's lines that remember which ones were read (0-based indices)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.read: set[int] = set()

    def __len__(self) -> int:
        return len(self.lines)

    def line(self, position: int) -> str:
        self.read.add(position)
        return self.lines[position]


def needed(result: ReviewResult, texts: Mapping[str, Sequence[str]]) -> dict[str, Excerpt]:
    """For each path with a finding to show, the lines its frames and suggestions read."""
    reads: dict[str, _Reads] = {}
    for verdict in result.findings:
        finding = verdict.finding
        lines = texts.get(finding.path)
        # Shown findings get a frame (comments, the summary's folded, elsewhere and
        # unclassified entries); preexisting ones are listed without, fixed ones sit at the
        # merge base.
        if not verdict.scope.shown or lines is None:
            continue
        recorder = reads.setdefault(finding.path, _Reads(lines))
        frame_digest(recorder, finding)
        if finding.fix is not None:
            suggest(finding.fix, finding.path, recorder)
    return {path: Excerpt(len(r.lines), {n + 1: r.lines[n] for n in r.read})
            for path, r in sorted(reads.items())}
