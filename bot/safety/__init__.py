"""The run's own safety: what keeps a pull request's code, run by its linters, from reaching the
bot's secrets, the runner or the user's checkout, and what cleans up after it.

- `lockdown`: what the bot does before it runs anything of a repository's, and checks after.
- `credentials`: the secrets, out of the environment and held in one mapping.
- `gitcreds`: credentials in the checkout's git configuration, refused before any tool runs.
- `filecommands`: the runner's file commands, watched while the pull request's code runs.
- `selfproc`: what other processes can read of this one through /proc.
- `orphans`: processes the tools leave behind, adopted and killed.
- `cancel`: SIGTERM and SIGINT kill every tool and unwind, so every `finally` runs.
- `guard`: no tool may change the user's checkout.

Which variables hold a credential, and which no process inherits, is one rule below this
package and `bot.proc` alike: `bot.secrecy`.

The lowest of the core's rooms (`tests/test_layering.py`: safety, revisions, verdicts, run):
may import the foundations at the top of `bot` (`errors`, `secrecy`, `proc`, `git`, `analyzer`;
the guard and the git configuration's check read the repository through `bot.git`); never
`bot.revisions`, the verdicts, the run, publishing, apply, the sweep, the doctor, the options,
the flows, the commands, the CI or a forge.
"""
