"""The sweep's `Pulls` on Bitbucket Cloud: a documented no-op. The pull requests of a commit
(`GET commit/{commit}/pullrequests`) need Bitbucket's pull request commit links indexed for the
repository, which the API only offers as a separate, opt-in call, and the bot's cut of the
description holds neither: a regression is attributed to its commit and author (git blame),
never to a pull request."""

from __future__ import annotations

from bot.forges.base import PullRef


class BitbucketPulls:
    def pull_of(self, sha: str) -> PullRef | None:
        return None
