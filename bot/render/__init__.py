"""The renderers: a review's findings as text, all pure.

For the forges: one comment's Markdown body and its hidden markers (`markdown`), the code
frame (`frame`), a fix as a suggestion block (`suggestion`), a forge's markdown dialect
(`dialect`, which each forge provides) and the order findings are shown in (`order`). For
files and machines: SARIF (`sarif`), GitLab's Code Quality report (`codequality`), both
rendered together as output files (`files`), and reviewdog's rdjson (`rdjson`). For a
terminal: the findings with their frames (`text`), a run's progress (`progress`), and the
quoting of untrusted text (`quoting`).

What it may import: the foundations (the model, positions, the codec, errors, git's short
names); never the publishing wing, the forges, the conversation, the CI, the flows or the
options, which all stand on it (a forge hands its dialect in as a value). This file imports
nothing.
"""
