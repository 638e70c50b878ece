"""Azure Pipelines: the run's predefined variables as a `Trigger`, the token it publishes with,
and the job's own outputs (logging commands: `##vso[task.logissue]` for annotations,
`##vso[task.uploadsummary]` for the job summary).

A pull request's run is a build validation policy's (BUILD_REASON=PullRequest): the
SYSTEM_PULLREQUEST_* variables name the pull request, its target branch and its source
commit; the checkout is the trial merge (`refs/pull/N/merge`), never the head, so the head is
SYSTEM_PULLREQUEST_SOURCECOMMITID and the base is the target branch as fetched
(`refs/remotes/origin/<target>`; the review takes their merge base).

Azure Pipelines has no comment trigger. A service hook on "Pull request commented on" starts
a run of the pipeline on the default branch (an incoming webhook resource, or a relay calling
the pipelines `runs` operation) with three variables: REVIEWBOT_PULL_REQUEST,
REVIEWBOT_THREAD and REVIEWBOT_COMMENT. They only point: whoever may queue the pipeline may
set them, so the comment's text, author and time are read from Azure DevOps with the
pipeline's token, and its thread must be on that pull request (docs/azure-devops.md).

The token is System.AccessToken, which Azure Pipelines gives a step only when the YAML maps it
(`env: SYSTEM_ACCESSTOKEN: $(System.AccessToken)`). Every variable is read by its form
(`variables.py`): a malformed one is refused with exit status 2, naming it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from bot import git
from bot.ci import variables
from bot.ci.base import answered
from bot.ci.variables import BRANCH, NUMBER, SHA, URL, Form
from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Connection, Range
from bot.model import Severity, Trigger, TriggerKind

if TYPE_CHECKING:
    from bot.forges.azure.api import Api, Settings

TOKEN = "SYSTEM_ACCESSTOKEN"
TOKEN_HINT = ("map the pipeline's token into the step's env: `env: SYSTEM_ACCESSTOKEN: "
              "$(System.AccessToken)` (Azure Pipelines gives it to no step that does not)")
MAINTAINERS = "REVIEWBOT_AZURE_MAINTAINERS"
CHECKOUT_HINT = "set `fetchDepth: 0` on the pipeline's `checkout: self` step"
EVERY_RUN = "every Azure Pipelines run sets it; run `reviewbot ci` in an Azure Pipelines job"
PR_HINT = ("run it from the repository's build validation branch policy (a pull request's "
           "run sets SYSTEM_PULLREQUEST_*)")
COMMAND_VARIABLES = ("REVIEWBOT_PULL_REQUEST", "REVIEWBOT_THREAD", "REVIEWBOT_COMMENT")
# What the service hook also names, for the command run's token-less analyze job.
COMMAND_RANGE = ("REVIEWBOT_HEAD", "REVIEWBOT_TARGET")

GUID = Form("a GUID", variables._matching(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"))
# A project's or repository's name: no control character, none of the characters Azure DevOps
# refuses in names, no leading or trailing space.
NAME = Form("an Azure DevOps name", variables._matching(r"[^\\/:*?\"<>|;#$%&+=@]+"))
REASON = Form("an Azure Pipelines build reason", variables._matching(r"[A-Za-z]+"))
STATES = Form("two states, `open,closed` (To Do,Done)", variables._matching(r"[^,;]+,[^,;]+"))
TARGET = Form("a branch ref (refs/heads/…)", lambda value: value.startswith("refs/heads/")
              and BRANCH.check(value.removeprefix("refs/heads/")))
CHANGE = "PR "  # how the job log names a change: PR 7 (Azure DevOps writes no sign)
ENABLE_COMMENTS = (
    "reviewbot could not write to this pull request, so its findings are in the job log only. "
    "To get threads and the status: give the project's Build Service identity `Contribute to "
    f"pull requests` on the repository, and {TOKEN_HINT}.")
HANDLED = {"review": "BUILD_REASON=PullRequest (a build validation policy)",
           "sweep": "BUILD_REASON=Schedule (a scheduled run of the default branch)",
           "comment": "a service hook's run with REVIEWBOT_PULL_REQUEST, REVIEWBOT_THREAD and "
                      "REVIEWBOT_COMMENT"}


def active(env: Mapping[str, str]) -> bool:
    """Whether this run is an Azure Pipelines job (its agent sets TF_BUILD=True)."""
    return (env.get("TF_BUILD") or "").lower() == "true"


def collection(env: Mapping[str, str]) -> str:
    return variables.required(env, "SYSTEM_COLLECTIONURI", URL, EVERY_RUN)


def project(env: Mapping[str, str]) -> str:
    return variables.required(env, "SYSTEM_TEAMPROJECT", NAME, EVERY_RUN).strip()


def repository_id(env: Mapping[str, str]) -> str:
    return variables.required(env, "BUILD_REPOSITORY_ID", GUID, EVERY_RUN)


def repository_name(env: Mapping[str, str]) -> str:
    return variables.required(env, "BUILD_REPOSITORY_NAME", NAME, EVERY_RUN).strip()


def full_name(env: Mapping[str, str]) -> str:
    """project/repository: how the bot names the repository in text and in artifacts."""
    return f"{project(env)}/{repository_name(env)}"


def from_env(env: Mapping[str, str]) -> Trigger:
    """The trigger of this run, from its variables alone (a command's comment is read with
    the API by `AzurePipelines.trigger`)."""
    reason = variables.required(env, "BUILD_REASON", REASON, EVERY_RUN)
    name = full_name(env)
    repository_id(env)
    collection(env)
    if reason == "PullRequest":
        number = int(variables.required(env, "SYSTEM_PULLREQUEST_PULLREQUESTID", NUMBER, PR_HINT))
        target = variables.required(env, "SYSTEM_PULLREQUEST_TARGETBRANCH", TARGET, PR_HINT)
        head = variables.required(env, "SYSTEM_PULLREQUEST_SOURCECOMMITID", SHA, PR_HINT)
        source = variables.optional(env, "SYSTEM_PULLREQUEST_SOURCEBRANCH", TARGET)
        return Trigger("azure", reason, "review", repository=name, number=number,
                       head_sha=head, target_ref=target.removeprefix("refs/heads/"),
                       head_ref=source.removeprefix("refs/heads/") if source else None,
                       head_repository=name)
    pointers = [variables.optional(env, v, NUMBER) for v in COMMAND_VARIABLES]
    if any(pointers):
        missing = [v for v, value in zip(COMMAND_VARIABLES, pointers, strict=True) if not value]
        if missing:
            raise BotError(f"{', '.join(missing)} is not set: a command's run needs all of "
                           f"{', '.join(COMMAND_VARIABLES)} (docs/azure-devops.md)", Exit.USAGE)
        number, _, comment = (int(p or 0) for p in pointers)
        into = variables.optional(env, "REVIEWBOT_TARGET", TARGET)
        # Where the pull request's head was when the comment was made, as the service hook
        # said: what a token-less analyze job reviews. The publish job checks it against the
        # head Azure DevOps names, and the comment's time against that head's push.
        return Trigger("azure", reason, "comment", repository=name, number=number,
                       comment_id=comment, head_sha=variables.optional(env, "REVIEWBOT_HEAD", SHA),
                       target_ref=into.removeprefix("refs/heads/") if into else None)
    if reason == "Schedule":
        branch = variables.required(env, "BUILD_SOURCEBRANCH", TARGET, EVERY_RUN)
        return Trigger("azure", reason, "sweep", repository=name,
                       target_ref=branch.removeprefix("refs/heads/"),
                       head_sha=variables.required(env, "BUILD_SOURCEVERSION", SHA, EVERY_RUN))
    return Trigger("azure", reason, "ignored", repository=name,
                   reason=f"a run for BUILD_REASON={reason} needs nothing from `reviewbot ci`")


def token(env: Mapping[str, str]) -> str:
    value = env.get(TOKEN) or ""
    if not value:
        raise BotError(f"no Azure DevOps token: {TOKEN_HINT}", Exit.USAGE)
    return value


def work_items(env: Mapping[str, str]) -> tuple[str | None, str, str, str]:
    """The sweep's work item settings: REVIEWBOT_AZURE_TEAM (the team a WIQL query runs in;
    default the project's own), REVIEWBOT_AZURE_WORK_ITEM (its type; default Task) and
    REVIEWBOT_AZURE_WORK_ITEM_STATES (`open,closed` as the process names them; default
    `To Do,Done`)."""
    team = variables.optional(env, "REVIEWBOT_AZURE_TEAM", NAME)
    kind = variables.optional(env, "REVIEWBOT_AZURE_WORK_ITEM", NAME) or "Task"
    states = variables.optional(env, "REVIEWBOT_AZURE_WORK_ITEM_STATES", STATES) or "To Do,Done"
    opened, closed = (part.strip() for part in states.split(","))
    return team.strip() if team else None, kind.strip(), opened, closed


def maintainers(env: Mapping[str, str]) -> tuple[str, ...]:
    """The identities (unique names or ids) that may command the bot: the pipeline's own
    setting, comma-separated."""
    text = env.get(MAINTAINERS) or ""
    if any(ord(c) < 0x20 for c in text):
        raise BotError(f"{MAINTAINERS} holds a control character; list unique names or ids, "
                       "separated by commas", Exit.USAGE)
    return tuple(part.strip() for part in text.split(",") if part.strip())


def escape_property(text: str) -> str:
    """A logging command's property value (Azure Pipelines's escaping)."""
    return (text.replace("%", "%AZP25").replace(";", "%3B").replace("]", "%5D")
            .replace("\r", "%0D").replace("\n", "%0A"))


def escape_message(text: str) -> str:
    return text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A")


def annotate(annotations: Sequence[Annotation]) -> None:
    """The findings as `task.logissue` logging commands: Azure Pipelines lists them on the
    run's page with their file and line."""
    for a in annotations:
        kind = "error" if a.severity >= Severity.ERROR else "warning"
        first = a.message.splitlines()[0] if a.message else ""
        print(f"##vso[task.logissue type={kind};sourcepath={escape_property(a.path)};"
              f"linenumber={a.start_line}]{escape_message(f'{a.title}: {first}')}")


def warn(text: str) -> None:
    print(f"##vso[task.logissue type=warning]{escape_message(f'reviewbot: {text}')}")


class AzurePipelines:
    """The Azure Pipelines runner (`bot.ci.base.Runner`)."""

    forge: Literal["azure"] = "azure"
    change_name = CHANGE
    enable_comments = ENABLE_COMMENTS
    checkout_hint = CHECKOUT_HINT

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def trigger(self) -> Trigger:
        """The run's trigger; a command's comment read from Azure DevOps (text, author, when),
        never from the variables that point at it. Without a token (the analyze job of a
        command's run) the comment is not read: that job only reviews the head."""
        trigger = from_env(self._env)
        if trigger.kind != "comment" or not self._env.get(TOKEN):
            return trigger
        from bot.forges.azure.commands import read_comment

        thread = int(variables.required(self._env, "REVIEWBOT_THREAD", NUMBER, HANDLED["comment"]))
        branch = variables.required(self._env, "BUILD_SOURCEBRANCH", TARGET, EVERY_RUN)
        assert trigger.number is not None
        return read_comment(open_api(self._settings(token(self._env), trigger.number)),
                            trigger, thread, branch)

    def checkout(self, given: Path | None) -> Path:
        folder = variables.optional(self._env, "BUILD_SOURCESDIRECTORY", variables.ABSOLUTE)
        return git.toplevel(given or Path(folder or "."))

    def in_change_event(self) -> bool:
        return (self._env.get("BUILD_REASON") or "") == "PullRequest" or any(
            self._env.get(name) for name in COMMAND_VARIABLES)

    def analysed_range(self, trigger: Trigger) -> Range | None:
        """The target branch as fetched and the pull request's source commit: the review
        takes their merge base. For a command, the head and target the service hook named
        (REVIEWBOT_HEAD, REVIEWBOT_TARGET), else None (the forge is asked)."""
        if trigger.kind not in ("review", "comment") or not (trigger.head_sha
                                                              and trigger.target_ref):
            return None
        return Range(f"refs/remotes/origin/{trigger.target_ref}", trigger.head_sha, True)

    def exposed_token(self) -> str | None:
        return TOKEN if self._env.get(TOKEN) else None

    def token(self, given: str | None) -> str:
        """Azure DevOps's token is never optional: none is a usage error naming the variable."""
        return given or token(self._env)

    def publishing(self, repository: str | None, number: int | None, head: str,
                   label: bool = False) -> Trigger:
        """The pull request of this run (the publish job runs in the analysis's run,
        `dependsOn` it): the analysis must be of its repository, pull request and head."""
        return answered(self.trigger(), repository, number, head)

    def clone_url(self, repository: str) -> str:
        return clone_url(self._env)

    def _settings(self, token: str, number: int | None) -> Settings:
        from bot.forges.azure.api import Settings

        team, kind, opened, closed = work_items(self._env)
        return Settings(collection(self._env), project(self._env), repository_id(self._env),
                        token, number, target_url=self._run_url(),
                        repository_name=repository_name(self._env), team=team,
                        work_item_type=kind, open_state=opened, closed_state=closed)

    def connect(self, trigger: Trigger, token: str | None, *, dry_run: bool = False
                ) -> Connection:
        """A dry run reads with the token (what it records is what a run would send now)."""
        # Here, not at the top: reading a trigger (`analyze`) must not load httpx.
        from bot.forges.azure.change import AzureChange
        from bot.forges.azure.host import push_env
        from bot.forges.azure.pulls import AzurePulls
        from bot.forges.azure.repository import AzureRepository

        token = self.token(token)
        number = trigger.number if trigger.kind != "sweep" else None
        api = open_api(self._settings(token, number))
        recorded = api.record_writes().requests if dry_run else None
        change = AzureChange(api.settings, api=api) if number is not None else None
        return Connection(full_name(self._env),
                          AzureRepository(api.settings, api=api,
                                          maintainers=maintainers(self._env)),
                          AzurePulls(api), "PR ", change,
                          push_env(token, server(self._env)), recorded, sleep=api.sleep)

    def _run_url(self) -> str | None:
        build = self._env.get("BUILD_BUILDID")
        if not (build and build.isdigit()):
            return None
        return f"{collection(self._env).rstrip('/')}/{project(self._env)}/_build/results" \
               f"?buildId={build}"

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str:
        what = trigger.reason or f"`{trigger.event}` is not handled yet"
        return (f"nothing to do: {what}; handled: "
                f"{'; '.join(HANDLED[k] for k in handled if k in HANDLED)}")

    def annotate(self, annotations: Sequence[Annotation]) -> None:
        annotate(annotations)

    def job_summary(self, text: str) -> None:
        """The summary as a markdown file the run's page shows (`task.uploadsummary`)."""
        folder = variables.optional(self._env, "AGENT_TEMPDIRECTORY", variables.ABSOLUTE)
        if folder is None:
            return
        path = Path(folder) / "reviewbot-summary.md"
        path.write_text(text, encoding="utf-8")
        print(f"##vso[task.uploadsummary]{escape_message(str(path))}")

    def warn(self, text: str) -> None:
        warn(text)


def server(env: Mapping[str, str]) -> str:
    """The organization's server (https://dev.azure.com), where git fetches and pushes."""
    parts = urlsplit(collection(env))
    return f"{parts.scheme}://{parts.netloc}"


def clone_url(env: Mapping[str, str]) -> str:
    """The repository's git URL (BUILD_REPOSITORY_URI; tests point it at a local repository)."""
    return variables.required(env, "BUILD_REPOSITORY_URI", URL, EVERY_RUN)


def open_api(settings: Settings) -> Api:
    """The one connection of a run (tests point it at the fake Azure DevOps here)."""
    from bot.forges.azure.api import Api

    return Api(settings)
