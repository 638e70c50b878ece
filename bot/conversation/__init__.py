"""The conversation on a change, pure: slash commands parsed, the state carried in the
summary comment, and the replies to structural-search commands. No forge, no CI."""
