"""The repository and its two revisions: the merge base and the head of a change, what changed
between them, and the checkouts the tools run in.

- `workspace`: the two revisions to compare (merge base, changed files, line maps, checkouts).
- `diff`: the one diff parser and the per-file line maps (pure).
- `moves`: where the lines one file lost went in another file of the change (pure).
- `evidence`: what the classifier reads of a change besides the findings (pure).
- `trees`: views of one revision's files, on disk or straight from git.
- `linked`: a base checkout made from the head's, hard-linking what both share.
- `partial`: the changed files' folders, for tools that read one file at a time.
- `deps`: the user's installed dependencies, made visible in the worktrees.
- `scratch`: the run's scratch folder, and what killed runs left behind.

May import the foundations at the top of `bot` (`git`, `proc`, `errors`, `model`, `positions`,
`cache`, `analyzer`) and `bot.safety`, the core's room below it (`tests/test_layering.py`:
safety, revisions, verdicts, run); never the verdicts or the run above it, publishing, apply,
the sweep, the doctor, the options, the flows, the commands, the CI or a forge. `bot.git` stays
at the top: the safety checks read the repository through it too, and they sit below this
package.
"""
