"""The linters: one module per linter, each a spec as data (`base.LinterSpec`), run by one
runner (`runner`: batches, the findings cache, the bisection of crashing batches in `bisect`,
the memory gate of the heavy tools in `memory`), registered in `registry`; `formats/` reads the
generic output formats (SARIF, rdjson, checkstyle, a regex), `presets` holds the zero-configuration
specs, `declared` a linter a repository declares in `.reviewbot.yml`, `messages` a tool's error
output as a reviewer needs it.

May import the foundations (`analyzer`, `cache`, `config`, `errors`, `fixes`, `model`,
`positions`, `proc`, `toolpath`), `bot.revisions` (the views of a revision's files) and
`bot.lsp.goenv` (golangci-lint runs in the environment gopls does); never the verdicts, the run,
publishing, the flows, the commands, the CI or a forge (`tests/test_layering.py`; `bot.config`
sits below this package and never imports it).
"""
