"""The review run: the pipeline that collects both revisions' findings and classifies them, and
the analysis it hands on (whole, or split into shards and joined again).

- `pipeline`: the core review (resolve the revisions, detect the tools, collect at base and
  head, classify).
- `shards`: a deterministic partition of one review's work over N jobs.
- `part`: one shard's part of an analysis, before any verdict.
- `assemble`: the artifacts `reviewbot publish` is given, joined into one analysis.
- `artifact`: the analysis artifact, one review of a change as data.
- `excerpt`: the few lines of a file that frames and suggestions read, carried instead of it.
- `lineview`: a file's lines as a sequence computed on each read (the excerpt's view).

May import the foundations at the top of `bot`, `bot.safety`, `bot.revisions`, `bot.verdicts`,
the tools (`bot.linters`, `bot.lsp`, `bot.structural`) and the pure renderers (`bot.render`):
the highest of the core's rooms (`tests/test_layering.py`: safety, revisions, verdicts, run).
Never publishing, apply, the sweep, the doctor, the options, the flows, the commands, the CI or
a forge. Only what sits above it calls it: the front, the commands, the flows, the sweep and
the options.
"""
