"""A file's lines as a `Sequence[str]` computed on each read: the one place the sequence
protocol (indices, negative indices, slices) is spelt out for the views that stand in for a
list of lines (an excerpt of a file, lines that record what was read, lines clipped as read)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import overload


class LineView(Sequence[str]):
    """Subclasses give `__len__` and `line(position)` (0-based, in range)."""

    @abstractmethod
    def line(self, position: int) -> str: ...

    @abstractmethod
    def __len__(self) -> int: ...

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        size = len(self)
        if isinstance(index, slice):
            return [self.line(n) for n in range(*index.indices(size))]
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError(index)
        return self.line(position)

    def __iter__(self) -> Iterator[str]:
        return (self.line(n) for n in range(len(self)))
