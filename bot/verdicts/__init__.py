"""The verdicts: each finding of the head held against the base's, as introduced, changed or
preexisting (pure).

- `classify`: the classifier, as passes over the two revisions' findings.
- `reflow`: where a region's lines landed when code was reflowed, token by token.
- `tokens`: a file's tokens and definitions, read with tree-sitter, for the passes above.

May import the foundations at the top of `bot` (`model`, `errors`, `positions`),
`bot.revisions` (the line maps, the moves and the evidence it reads) and `bot.structural`'s
parsers; never the run, the core's room above it (`tests/test_layering.py`: safety, revisions,
verdicts, run), publishing, apply, the sweep, the doctor, the options, the flows, the commands,
the CI or a forge. Only the run imports it.
"""
