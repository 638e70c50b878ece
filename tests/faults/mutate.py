"""Every field of a JSON-like document removed or given a value of another type, one at a time.

A mutation copies only the containers on the way to the field it changes, so walking the few
thousand fields of a real webhook payload costs milliseconds, not a deep copy each."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Path = tuple[str | int, ...]

# One value of each JSON type, and the odd ones parsers trip on.
WRONG_TYPES: tuple[Any, ...] = (None, True, 0, -1, 1.5, 10**20, "", "x", [], [1], {}, {"x": 1})

REMOVED = object()  # the marker for "the field is gone"


@dataclass(frozen=True)
class Mutation:
    path: Path
    value: Any  # REMOVED, or what the field now holds
    document: Any

    @property
    def field(self) -> str:
        """The field as messages spell it: `pull_request.head.sha`, `files[0].path`."""
        return dotted(self.path)

    def __str__(self) -> str:
        what = "removed" if self.value is REMOVED else f"= {self.value!r}"
        return f"{self.field} {what}"


def dotted(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _same_type(a: Any, b: Any) -> bool:
    return type(a) is type(b) or (isinstance(a, int | float) and isinstance(b, int | float)
                                  and not isinstance(a, bool) and not isinstance(b, bool))


def fields(document: Any, path: Path = (), items: int = 2) -> Iterator[Path]:
    """Every field's path, depth first; only the first `items` entries of each list."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield (*path, key)
            yield from fields(value, (*path, key), items)
    elif isinstance(document, list):
        for index, value in enumerate(document[:items]):
            yield (*path, index)
            yield from fields(value, (*path, index), items)


def _with(document: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy: Any = dict(document) if isinstance(document, dict) else list(document)
    if not rest and value is REMOVED:
        del copy[head]
    else:
        copy[head] = _with(document[head], rest, value)
    return copy


def get(document: Any, path: Path) -> Any:
    for part in path:
        document = document[part]
    return document


def mutations(document: Any, items: int = 2,
              values: tuple[Any, ...] = WRONG_TYPES) -> Iterator[Mutation]:
    """For every field: the document without it, and with each value of another type."""
    for path in fields(document, items=items):
        yield Mutation(path, REMOVED, _with(document, path, REMOVED))
        current = get(document, path)
        for value in values:
            if not _same_type(value, current) or (isinstance(current, str) and value != current):
                yield Mutation(path, value, _with(document, path, value))


def named(message: str, path: Path, form: Callable[[str], str] = "`{}`".format) -> bool:
    """Does `message` name the field at `path`, a field that holds it, or (for a container
    that is gone or is not one) a field inside it? Fields are written as `form` writes them
    (backquoted by default)."""
    if any(form(dotted(path[:n])) in message for n in range(len(path), 0, -1)):
        return True
    opening = form("\0").split("\0")[0]
    inside = re.escape(opening + dotted(path)) + r"[.\[]"
    return re.search(inside, message) is not None
