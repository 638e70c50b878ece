"""The apply engine: a staged plan of edits at a pull request's head, verified, made into one
commit with git plumbing and pushed with a lease (or handed back as a patch).

`plan` computes the plan and its id (pure but for reading blobs at the head), `verify` applies
it in memory and checks every file, `commit` writes the commit and pushes it, `flow.run` is
the whole thing.

May import the foundations (`model`, `errors`, `config`, `git`, `positions`),
`bot.structural` and the pure renderers (`bot.render`); never the run, publishing, the flows,
the commands, the CI or a forge: `bot.flows` hands it the change.
"""
