"""The scheduled regression sweep: the default branch's HEAD against the last swept commit,
each regression attributed to the commit, pull request and people that brought it, the state
kept in one tracking issue (`state` the marker, `attribute` the choice of commit, `codeowners`
who owns a path, `probes` the reviews at the range's commits kept beside the findings cache,
`render` the pages, `flow` the sweep itself).

May import the foundations, the tools, `bot.revisions`, `bot.run` (it reviews two commits
as a review does), the pure renderers and the forge protocols (`bot.forges.base`,
`.repository`); never the verdicts (the run joins them to the findings), a forge's own
package, the flows, the commands or the CI (`tests/test_layering.py`).
"""
