"""Forge-neutral actions, each a short top-to-bottom function over the protocols of
`bot.forges.base` and `bot.ci.base`: review, comment (slash commands), label (apply), sweep,
publish, and deliver (the gate and every output of a review)."""
