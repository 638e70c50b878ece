"""Bitbucket Cloud's sizes and its markdown dialect, as data. Pure.

Bitbucket renders no suggestion block (its API describes none): a suggested fix is a fenced
`diff` block, applied by hand or by `/fix` and `/apply PLAN`. An inline comment sits on one
line (`inline.to`, a head line), so `ranges` is False.
"""

from __future__ import annotations

from bot.render.dialect import Dialect

PAGE_SIZE = 100  # the largest `pagelen` Bitbucket's collections serve
# No limit on a comment's body is documented; the GitHub limit keeps a body that renders on
# every forge.
BODY_LIMIT = 65_536
# Code Insights, as Bitbucket's Code Insights guide states its limits: a report's details,
# an annotation's summary, annotations per request and per report.
DETAILS_LIMIT = 2_000
SUMMARY_LIMIT = 450
ANNOTATIONS_PER_REQUEST = 100  # the description's maxItems
ANNOTATIONS_PER_REPORT = 1_000
TITLE_LIMIT = 255
REPORT_ID = "reviewbot"  # the Code Insights report's external id, and the build status key
SWEEP_REPORT = "reviewbot-sweep"  # the sweep's report where the repository has no tracker


def fence(start: int, end: int, anchor: int) -> str:
    """Bitbucket renders no suggestion block: the fix is shown, not applied."""
    return "diff"


DIALECT = Dialect("bitbucket", body_limit=BODY_LIMIT, ranges=False, fence=fence,
                  elsewhere="the Code Insights report or the pipeline's log", labels=False)
