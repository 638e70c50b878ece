"""Azure DevOps's sizes, API versions and markdown dialect, as data. Pure.

Azure DevOps's pull request page renders a ```suggestion block in a thread on head lines
(the block replaces the thread's lines, `rightFileStart`..`rightFileEnd`), so a thread may
sit on a range of lines and `ranges` is True.
"""

from __future__ import annotations

from bot.render.dialect import Dialect

# The api-version each resource is described at (tests/forges/azure/README.md): the service
# refuses a request without one, and a preview resource without its preview number.
PULL = "7.2-preview.2"  # Pull Requests_Get, Pull Request Statuses_*
THREADS = "7.2-preview.1"  # threads, comments, iterations, changes, labels, reviewers, commits
ITEMS = "7.2-preview.1"
WORK_ITEMS = "7.2-preview.3"
RUNS = "7.2-preview.1"
PAGE_SIZE = 100  # $top of the iteration changes (the service's own default)
# A comment's content is limited to 150,000 characters (the service refuses longer ones);
# the GitHub limit keeps a body that renders on every forge.
BODY_LIMIT = 65_536
DESCRIPTION_LIMIT = 255  # a status's description shows as one line
GENRE = "reviewbot"  # the status context's genre: what a branch policy requires
# The thread properties the bot finds its threads by (`PropertiesCollection` entries).
FINGERPRINT = "reviewbot.fingerprint"
SUMMARY = "reviewbot.summary"
NOTE = "reviewbot.note"


def fence(start: int, end: int, anchor: int) -> str:
    return "suggestion"  # the block replaces the thread's lines, start..end


# `labels` False: a label records nobody who added it, so the apply trigger is a comment
# (docs/azure-devops.md, "The apply trigger").
DIALECT = Dialect("azure", body_limit=BODY_LIMIT, ranges=True, fence=fence,
                  elsewhere="the pipeline's log or the SARIF file", labels=False)
