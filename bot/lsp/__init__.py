"""Type checking through language servers: lazy, honest, only what is new.

framing.py   Content-Length framing (the one place; reusable for a debug-adapter client)
rpc.py       JSON-RPC over a child process: ordered dispatch, timeouts, stderr drain, kill
client.py    the LSP client: capabilities, answers to server requests, published state
servers.py   server specs as data (command, root markers, settings, completion signal)
session.py   one server over one revision's files, ended by its completion signal
importers.py files that import a changed module (tree-sitter), checked beyond the diff
diagnostics.py  LSP diagnostics -> Findings (pure)
analyzer.py  each server as an `Analyzer`; registry.py exposes `SERVERS`

Base and head: each revision gets its own session on its own checkout, run concurrently by
the pipeline. A single warm server serving both (the base text opened over the head's files)
would be sound only for changes that touch source files alone and only for the opened files:
importers read the changed module from disk, added files cannot be hidden from the server and
config or lockfile changes alter the whole program. Two sessions are always correct, and on
concurrent lanes cost wall time of one cold start, not two.
"""
