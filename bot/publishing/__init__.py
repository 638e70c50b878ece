"""The publishing wing: everything between a review's result and what the world sees of it.

It holds where each finding goes (`placement`: the shared values, `policy`: inline, file or
summary, and the caps), the reconciliation of the forge's comments with this run (`sync`), the
summary and the check run's report (`summary`), the files and lines besides the forge
(`outputs`: SARIF, Code Quality, why the gate did not pass), and the gate itself (`gate`).

What it may import: the model and the core's pure renderers (`bot.render`), the conversation's
state, and the forge protocols (`bot.forges.base`); never a forge package, the CI runners, the
flows or the commands. A local review imports `gate` alone, so this file imports nothing.
"""
