"""The actions, each a short top-to-bottom function: the local review (`local`: no forge), and
the forge-neutral ones over the protocols of `bot.forges.base` and `bot.ci.base`: review,
comment (slash commands), label (apply), sweep, queue and publish. What a review shows, and
where, is the publishing wing's (`bot.publishing`): a flow decides and returns its turn
(`bot.publishing.turn.Turn`: the exit status, or the review to publish and what follows it),
and the command that ran it hands that to `bot.publishing.turn.publish`, the one place that
builds the publication and delivers it."""
