"""reviewbot: the review of a change by the repository's own linters and language servers."""

import gc

# Loading the bot makes tens of thousands of objects that live as long as the process (classes,
# the dataclasses' generated methods, tables), and the interpreter's first threshold (700 new
# objects) makes the collector walk them again and again while they are made: 7 to 8 ms of
# CPU of a review's start, as much as with the collector off (docs/performance.md, "Our own
# fixed cost"). Cycles are still collected, after 100,000 new objects instead of 700; nearly
# everything a review makes is freed by reference counting anyway.
_FIRST, *_OLDER = gc.get_threshold()
gc.set_threshold(max(_FIRST, 100_000), *_OLDER)
