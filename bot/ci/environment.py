"""Which CI environment this run is in, as the module that reads it (`github_actions`,
`gitlab_ci`): its trigger, and the runner outputs a review falls back to or adds (annotations,
a job summary, a warning). GitLab CI says so with GITLAB_CI=true; anything else is read as
GitHub Actions, whose own checks then say what is missing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from bot.ci import github_actions, gitlab_ci
from bot.forges.base import Annotation
from bot.model import Trigger, TriggerKind


class Runner(Protocol):
    ENABLE_COMMENTS: str
    CHANGE: str

    def from_env(self, env: Mapping[str, str]) -> Trigger: ...

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str: ...

    def annotate(self, annotations: Sequence[Annotation]) -> None: ...

    def job_summary(self, env: Mapping[str, str], text: str) -> None: ...

    def warn(self, text: str) -> None: ...


def current(env: Mapping[str, str]) -> Runner:
    return gitlab_ci if gitlab_ci.active(env) else github_actions
