"""The scheduled regression sweep: the default branch's HEAD against the last swept commit,
each regression attributed to the commit, pull request and people that brought it, the state
kept in one tracking issue (`state` the marker, `attribute` the choice of commit, `render` the
pages, `history` the git reads, `flow` the sweep itself).

May import the foundations, the tools, `bot.revisions`, `bot.run` (it reviews two commits
as a review does), the pure renderers and the forge protocols; never the flows, the commands
or the CI.
"""
