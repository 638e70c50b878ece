"""Type checking through language servers: lazy, honest, only what is new.

framing.py   Content-Length framing (the one place; reusable for a debug-adapter client)
rpc.py       JSON-RPC over a child process: ordered dispatch, timeouts, stderr drain, kill
client.py    the LSP client: capabilities, answers to server requests, published state
servers.py   server specs as data (command, root markers, settings, completion signal)
session.py   one server over one revision's files, ended by its completion signal
importers.py files that import a changed module (tree-sitter), checked beyond the diff
scope.py     what is left to a server when a linter type-checked the changed packages
surface.py   what other packages can see of a Go change (its importers skipped when nothing)
memo.py      a revision's result kept in the findings cache: a new push checks the head only
budget.py    how long a server may take: the timeout, moved by its progress, within a bound
diagnostics.py  LSP diagnostics -> Findings (pure)
analyzer.py  each server as an `Analyzer`; registry.py exposes `SERVERS`

Base and head: where the revisions differ only in the text of files the server opens (every
changed path a source file of its language present at both, no manifest or config among them)
and the server follows open documents (`warm_pair`: tsserver, basedpyright, pyright, gopls), one
server on the head's checkout checks both: the head's text opened and diagnosed, then changed to
the base's and diagnosed again (`LspAnalyzer.collect_pair`, `session.run_pair`) — one project
load instead of two. Otherwise (an added, deleted or renamed module, a changed tsconfig.json or
go.mod, rust-analyzer whose cargo check reads the disk) each revision gets its own session on
its own checkout, both at once. Either way the base is diagnosed only when the head has a
finding (the base's own session is stopped when the head ends with none): a base finding can
only make a head finding preexisting, so with none there is nothing to classify (what the
change fixed is then not listed: a sweep, which closes fixed regressions, asks for every base
with `Target.fixed`).

Time: the review's timeout, started again by each sign of progress a server shows, up to
`ServerSpec.ready_timeout` beyond it (budget.py): a cold start under load is waited for while
it works; a server that says nothing for a whole timeout is stopped, and the result says which.

Next to a linter that type-checks (golangci-lint for gopls, clippy for rust-analyzer) and ran
cleanly over the changed packages, the server only looks beyond them (`scope.py`).

May import the foundations (`analyzer`, `cache`, `errors`, `model`, `positions`, `proc`,
`toolpath`); never the revisions' packages, the verdicts, the run, publishing, the flows, the
commands, the CI or a forge (`tests/test_layering.py`).
"""
