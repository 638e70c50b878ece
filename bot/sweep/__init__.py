"""The scheduled regression sweep: the default branch's HEAD against the last swept commit,
each regression attributed to the commit, pull request and people that brought it, the state
kept in one tracking issue (`state` the marker, `attribute` the choice of commit, `render` the
pages, `history` the git reads, `flow` the sweep itself)."""
