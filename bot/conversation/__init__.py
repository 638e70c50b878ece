"""The conversation on a change, pure: slash commands parsed, the state carried in the
summary comment, and the replies to structural-search commands. No forge, no CI.

May import the foundations (`model`, `errors`, `positions`), `bot.structural`,
`bot.apply`'s plan and the pure renderers (`bot.render`); never a forge, the CI, the flows,
the commands, or publishing, which stands on it (`tests/test_layering.py`).
"""
