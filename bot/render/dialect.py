"""A forge's markdown dialect: what its comments accept, as data its forge module provides.

It sits with the renderers because they write to it (a suggestion's fence, a body's length),
and below the forges, which provide one each, and the publishing wing, which carries it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# Where GitHub shows what a comment had no room for; the default of a page not tied to a forge.
ELSEWHERE = "the check run or the SARIF file"


@dataclass(frozen=True)
class Dialect:
    """What a forge's comments accept.

    `fence(start, end, anchor)` is the info string of a suggestion block that replaces head
    lines start..end, in a comment whose anchor line is `anchor`; `ranges` says whether a
    comment may sit on a range of lines (else it sits on one line, the first of the range);
    `body_limit` is the longest comment body, in characters; `elsewhere` names where on this
    forge everything a body had no room for can be read; `labels` says whether its changes
    carry labels (else the apply trigger is a comment that names the plan).
    """

    name: str
    body_limit: int
    ranges: bool
    fence: Callable[[int, int, int], str]
    elsewhere: str = ELSEWHERE
    labels: bool = True
