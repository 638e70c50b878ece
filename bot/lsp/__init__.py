"""Type checking through language servers: lazy, honest, only what is new.

framing.py   Content-Length framing (the one place; reusable for a debug-adapter client)
rpc.py       JSON-RPC over a child process: ordered dispatch, timeouts, stderr drain, kill
client.py    the LSP client: capabilities, answers to server requests, published state
servers.py   server specs as data (command, root markers, settings, completion signal)
session.py   one server over one revision's files, ended by its completion signal
importers.py files that import a changed module (tree-sitter), checked beyond the diff
diagnostics.py  LSP diagnostics -> Findings (pure)
analyzer.py  each server as an `Analyzer`; registry.py exposes `SERVERS`

Base and head: each revision gets its own session on its own checkout; the pipeline runs the
two concurrently, so the wall time is about one cold start, not two. No server serves both.
The warm alternative (one server on the head checkout, the base text of the changed files
opened over it, lsp.md §3.3) is sound only when every changed file exists at both revisions
and no build or config file changed (an added file cannot be hidden from the server, a new
`pyproject.toml`/`tsconfig.json`/`go.mod` changes the whole program), never for rust-analyzer
(cargo check reads the disk, not open documents), and it makes base and head sequential in
one process — giving up the concurrency that already hides the second cold start.
"""
