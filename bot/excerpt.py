"""The few lines of a file that code frames and suggestions read, standing in for the file.

Pure. `needed` runs the renderers' own readers (`bot.render.markdown.frame_digest`, which reads
what a frame shows, and `bot.render.suggestion.suggest`) over the full head texts and keeps only
the lines they touched; an `Excerpt` is then a `Sequence[str]` as long as the file, so
`bot.review.place` and `bot.render.summary.render` give the same text from it as from the file.
Lines nobody reads are empty strings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import overload

from bot.model import ReviewResult
from bot.render.markdown import frame_digest
from bot.render.suggestion import suggest

# Head findings shown with a frame (comments, the summary's folded, elsewhere and unclassified
# entries); preexisting ones are listed without frames and fixed ones sit at the merge base.
SHOWN_SCOPES = ("introduced", "changed", "unclassified")


class Excerpt(Sequence[str]):
    """A file of `size` lines of which only `known` (1-based line number: text with its line
    ending) are kept."""

    def __init__(self, size: int, known: Mapping[int, str]) -> None:
        self.size = size
        self.known = dict(sorted(known.items()))

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self.known.get(n + 1, "") for n in range(*index.indices(self.size))]
        position = index + self.size if index < 0 else index
        if not 0 <= position < self.size:
            raise IndexError(index)
        return self.known.get(position + 1, "")

    def __iter__(self) -> Iterator[str]:
        return (self.known.get(n, "") for n in range(1, self.size + 1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Excerpt):
            return (self.size, self.known) == (other.size, other.known)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to others by content, like a list

    def __repr__(self) -> str:
        return f"Excerpt({self.size}, {self.known!r})"


class _Reads(Sequence[str]):
    """A file's lines that remember which ones were read (0-based indices)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.read: set[int] = set()

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            positions = range(*index.indices(len(self.lines)))
            self.read.update(positions)
            return [self.lines[n] for n in positions]
        text = self.lines[index]
        self.read.add(index % len(self.lines))
        return text

    def __iter__(self) -> Iterator[str]:
        self.read.update(range(len(self.lines)))
        return iter(self.lines)


def needed(result: ReviewResult, texts: Mapping[str, Sequence[str]]) -> dict[str, Excerpt]:
    """For each path with a finding to show, the lines its frames and suggestions read."""
    reads: dict[str, _Reads] = {}
    for verdict in result.findings:
        finding = verdict.finding
        lines = texts.get(finding.path)
        if verdict.scope not in SHOWN_SCOPES or lines is None:
            continue
        recorder = reads.setdefault(finding.path, _Reads(lines))
        frame_digest(recorder, finding)
        if finding.fix is not None:
            suggest(finding.fix, finding.path, recorder)
    return {path: Excerpt(len(r.lines), {n + 1: r.lines[n] for n in r.read})
            for path, r in sorted(reads.items())}
