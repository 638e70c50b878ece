"""reviewbot: the review of a change by the repository's own linters and language servers.

The rooms, from the entry points down (each imports only the rooms below it;
`tests/test_layering.py` holds the rules):

- `cli`, `action`, `commands/`: the command line and the action's entry, turned into options.
- `flows/`: the forge-neutral actions (review, publish, comment, label, sweep, queue), over
  `ci/` (one runner per CI) and `forges/` (one package per forge behind `forges.base`).
- `publishing/`, `render/`, `conversation/`, `apply/`, `sweep/`, `doctor/`: what a review
  shows and where, its text, the conversation's state, the staged plan, the tracking issue,
  the tool check.
- `run/`: the review run (the pipeline, shards and their parts, the analysis artifact).
- `verdicts/`: introduced, changed or preexisting (pure).
- `linters/`, `lsp/`, `structural/`: the tools, behind `analyzer`'s contract.
- `revisions/`: the repository and its two revisions (the diff, the checkouts, the evidence).
- `safety/`: the run's own safety (the lockdown, credentials, the runner's files, cleanup).
- the foundations at the top: `model`, `errors`, `codec`, `options`, `config`, `proc`, `git`,
  `positions`, `cache`, `cachesig`, `analyzer`, `atomic`, `toolpath`, `fixes`, `secrecy`.
"""

import gc

# Loading the bot makes tens of thousands of objects that live as long as the process (classes,
# the dataclasses' generated methods, tables), and the interpreter's first threshold (700 new
# objects) makes the collector walk them again and again while they are made: 7 to 8 ms of
# CPU of a review's start, as much as with the collector off (docs/performance.md, "Our own
# fixed cost"). Cycles are still collected, after 100,000 new objects instead of 700; nearly
# everything a review makes is freed by reference counting anyway.
_FIRST, *_OLDER = gc.get_threshold()
gc.set_threshold(max(_FIRST, 100_000), *_OLDER)
