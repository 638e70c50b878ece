"""Structural search and staged rewrites on tree-sitter.

`pattern` compiles a code pattern through a ladder of wrapping contexts, `match` finds it in
parsed trees, `rewrite` turns matches into edits, `plan` stages and applies them, and `api`
is what the rest of the bot calls.

May import the foundations (`analyzer`, `atomic`, `codec`, `errors`, `git`, `model`,
`positions`) and the pure renderers (`bot.render`); never the revisions, the verdicts, the run,
publishing, the flows, the commands, the CI or a forge (`tests/test_layering.py`).
"""

TOOL = "ast-grep"  # the tool name rule findings carry (imports nothing heavy)
