"""The pull request conversation: slash commands (`parse`), the state kept in the summary
comment (`state`), who may command the bot and how it answers (`flow`)."""
