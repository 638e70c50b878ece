"""The actions, each a short top-to-bottom function: the local review (`local`: no forge), and
the forge-neutral ones over the protocols of `bot.forges.base` and `bot.ci.base`: review,
comment (slash commands), label (apply), sweep, queue and publish. What a review shows, and
where, is the publishing wing's (`bot.publishing`): every flow builds one publication and
hands it to its sinks."""
