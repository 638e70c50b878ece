"""The forges the forge rows of the fault matrix run against: a validating fake GitHub or
GitLab on a real repository, the bot's own forge and repository clients pointed at it, and one
reading of what the fake now holds (the bot's comments by finding, summaries, resolved threads,
check runs or statuses, reactions, labels, issues), the same for each forge.

Each fake names its fault kinds its own way; `KINDS` maps the matrix's names onto them."""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from bot.forges.azure.api import Api as AzureApi
from bot.forges.azure.api import Settings as AzureSettings
from bot.forges.azure.change import AzureChange
from bot.forges.azure.repository import AzureRepository
from bot.forges.base import Change
from bot.forges.bitbucket.api import Api as BitbucketApi
from bot.forges.bitbucket.api import Settings as BitbucketSettings
from bot.forges.bitbucket.change import BitbucketChange
from bot.forges.bitbucket.repository import BitbucketRepository
from bot.forges.gitea.api import Api as GiteaApi
from bot.forges.gitea.api import Settings as GiteaSettings
from bot.forges.gitea.change import GiteaChange
from bot.forges.gitea.repository import GiteaRepository
from bot.forges.github.api import Settings as GitHubSettings
from bot.forges.github.change import GitHubChange
from bot.forges.github.repository import GitHubRepository
from bot.forges.gitlab import change as gitlab
from bot.forges.gitlab import repository as gitlab_repository
from bot.forges.repository import Repository
from tests.conftest import GitRepo
from tests.forges import fakeazure, fakebitbucket, fakegitea, fakegithub, fakegitlab
from tests.forges.loopback import Fault

Name = Literal["github", "gitlab", "gitea", "bitbucket", "azure"]
TEXT = "".join(f"v{n} = {n}\n" for n in range(1, 21))
SWEEP_LABEL = "reviewbot:regressions"

# The matrix's fault names -> each fake's kind (absent: the forge has no such answer).
KINDS: dict[Name, dict[str, str]] = {
    "github": {"5xx before": "502", "5xx after": "502-after", "timeout before": "timeout",
               "timeout after": "timeout-after", "secondary limit (403 retry-after)": "secondary",
               "primary limit (403 remaining 0)": "primary",
               "primary limit (429 remaining 0)": "primary-429", "404 deleted": "deleted"},
    "gitlab": {"5xx before": "502", "5xx after": "502-after", "timeout before": "timeout",
               "timeout after": "timeout-after", "429 Retry-After": "429",
               "429 RateLimit-Reset": "429-reset", "404 deleted": "deleted",
               "400 line_code": "line_code"},
    "gitea": {"5xx before": "500-before", "5xx after": "500-after",
              "timeout before": "timeout-before", "timeout after": "timeout-after",
              "429 Retry-After": "429", "404 deleted": "deleted"},
    # The fake Bitbucket's 404 answers without deleting anything: no "404 deleted" row.
    "bitbucket": {"5xx before": "500-before", "5xx after": "500-after",
                  "timeout before": "timeout-before", "timeout after": "timeout-after",
                  "429 Retry-After": "429"},
    # As Bitbucket's: the fake Azure DevOps's 404 deletes nothing.
    "azure": {"5xx before": "500-before", "5xx after": "500-after",
              "timeout before": "timeout-before", "timeout after": "timeout-after",
              "429 Retry-After": "429"},
}
# The writes a forge does not have (Bitbucket: no reactions, no labels on pull requests).
# Azure DevOps: no reactions.
ABSENT: dict[Name, tuple[str, ...]] = {"bitbucket": ("reaction", "label add", "label remove"),
                                       "azure": ("reaction",)}

# Each write -> the request that makes it, as the fake's fault target.
TARGETS: dict[Name, dict[str, str]] = {
    "github": {
        "review": r"POST /pulls/\d+/reviews$",
        "summary": r"POST /issues/\d+/comments$",
        "summary edit": r"PATCH /issues/comments/\d+$",
        "comment edit": r"PATCH /pulls/comments/\d+$",
        "resolve": "graphql:mutation",
        "check run": r"POST /check-runs$",
        "reply": r"POST /issues/\d+/comments$",
        "reaction": r"POST /issues/comments/\d+/reactions$",
        "label add": r"POST /issues/\d+/labels$",
        "label remove": r"DELETE /issues/\d+/labels/",
        "issue create": r"POST /issues$",
        "issue update": r"PATCH /issues/\d+$",
    },
    "gitlab": {
        "review": "POST /discussions$",
        "summary": "POST /merge_requests/3/notes$",
        "summary edit": r"PUT /merge_requests/3/notes/\d+$",
        "comment edit": r"PUT /discussions/[0-9a-f]+/notes/\d+$",
        "resolve": "PUT /discussions/[0-9a-f]+$",
        "check run": "POST /statuses/",
        "reply": "POST /merge_requests/3/notes$",
        "reaction": "POST /award_emoji$",
        "label add": "PUT /merge_requests/3$",
        "label remove": "PUT /merge_requests/3$",
        "issue create": "POST /issues$",
        "issue update": r"PUT /issues/\d+$",
    },
    # Gitea's fake matches the whole "METHOD path"; an inline comment's edit and the
    # summary's are the same request (the inline one comes first in a run).
    "gitea": {
        "review": r"POST .*/pulls/1/reviews",
        "summary": r"POST .*/issues/1/comments",
        "summary edit": r"PATCH .*/issues/comments/\d+",
        "comment edit": r"PATCH .*/issues/comments/\d+",
        "resolve": r"POST .*/pulls/1/comments/\d+/resolve",
        "check run": r"POST .*/statuses/[0-9a-f]+",
        "reply": r"POST .*/issues/1/comments",
        "reaction": r"POST .*/issues/comments/\d+/reactions",
        "label add": r"POST .*/issues/1/labels",
        "label remove": r"DELETE .*/issues/1/labels/\d+",
        "issue create": r"POST .*/issues",
        "issue update": r"PATCH .*/issues/\d+",
    },
    # As Gitea's: the inline comments and the summary are the same request (inline first).
    "bitbucket": {
        "review": r"POST .*/pullrequests/1/comments",
        "summary": r"POST .*/pullrequests/1/comments",
        "summary edit": r"PUT .*/pullrequests/1/comments/\d+",
        "comment edit": r"PUT .*/pullrequests/1/comments/\d+",
        "resolve": r"POST .*/pullrequests/1/comments/\d+/resolve",
        "check run": r"POST .*/commit/[0-9a-f]+/statuses/build",
        "reply": r"POST .*/pullrequests/1/comments",
        "issue create": r"POST .*/issues",
        "issue update": r"PUT .*/issues/\d+",
    },
    # As Gitea's: a finding's thread and the summary's are the same request (findings first).
    "azure": {
        "review": r"POST .*/pullRequests/1/threads",
        "summary": r"POST .*/pullRequests/1/threads",
        "summary edit": r"PATCH .*/pullRequests/1/threads/\d+/comments/\d+",
        "comment edit": r"PATCH .*/pullRequests/1/threads/\d+/comments/\d+",
        "resolve": r"PATCH .*/pullRequests/1/threads/\d+",
        "check run": r"POST .*/pullRequests/1/statuses",
        "reply": r"POST .*/pullRequests/1/threads",
        "label add": r"POST .*/pullRequests/1/labels",
        "label remove": r"DELETE .*/pullRequests/1/labels/.+",
        "issue create": r"POST .*/wit/workitems/\$Task",
        "issue update": r"PATCH .*/wit/workitems/\d+",
    },
}

class Armed(Protocol):
    """A fault armed in a fake: how many requests it has answered."""

    @property
    def hit(self) -> int: ...


_KEY = re.compile(r"reviewbot:fp=(\S+)")


@dataclass
class Site:
    """One forge for one row: its fake, the bot's clients for it, and what the fake holds."""

    name: Name
    repo: GitRepo
    head: str
    forge: Callable[[], Change]
    repository: Callable[[], Repository]
    inject: Callable[[str, str], Armed]  # (write, matrix kind) -> the fault armed
    comments: Callable[[], Counter[str]]  # the bot's inline comments by finding key
    summaries: Callable[[], list[str]]
    resolved: Callable[[str], bool | None]  # a finding's thread resolved (None: no thread)
    checks: Callable[[], list[str]]  # the conclusions of the reviewbot check runs / statuses
    replies: Callable[[str], int]  # the bot's comments (not summaries) holding a text
    reactions: Callable[[int], list[str]]
    labels: Callable[[], list[str]]
    issues: Callable[[], list[tuple[str, bool]]]  # (body, open) of each issue
    bodies: Callable[[], list[str]]  # the bot's inline comments' texts
    refuse_line: Callable[[int], None]  # the forge's diff no longer has a line of a.py
    failed: str  # how the forge names a failing check
    command: int  # a person's comment on the change, reacted to
    number: int
    errors: list[str]  # requests the forge's description refuses
    stop: Callable[[], None]


def github(work: Path) -> Site:
    repo = GitRepo(work / "repo")
    repo.commit({"a.py": "\n"}, "base")
    head = repo.commit({"a.py": TEXT}, "head")
    fake = fakegithub.FakeGitHub(head, {"a.py": set(range(1, 21))})
    fake.__enter__()
    fake.late = 1.2
    command = fake.comment_by("alice", "/help")
    fake.s.issues[99] = {"title": "unrelated", "body": "", "state": "open"}  # not the PR
    settings = GitHubSettings(api_url=fake.api_url, graphql_url=fake.graphql_url, token="t0ken",
                              repository=f"{fake.owner}/{fake.repo}", number=fake.number,
                              timeout=1.0, write_spacing=0.0)

    def inject(write: str, kind: str) -> Fault:
        fault = Fault(TARGETS["github"][write], KINDS["github"][kind])
        fake.faults.append(fault)
        return fault

    def comments() -> Counter[str]:
        return Counter(m.group(1) for c in fake.bot_comments()
                       if (m := _KEY.search(str(c["body"]))) and not c.get("in_reply_to_id"))

    def resolved(key: str) -> bool | None:
        for c in fake.bot_comments():
            if f"reviewbot:fp={key} " in str(c["body"]) and c["id"] in fake.s.threads:
                return bool(fake.s.threads[c["id"]]["resolved"])
        return None

    def checks() -> list[str]:
        return [str(r.get("conclusion")) for r in fake.s.check_runs.values()
                if r.get("name") == "reviewbot" and r.get("head_sha") == fake.s.head]

    def replies(text: str) -> int:
        return sum(1 for c in fake.s.issue_comments.values()
                   if text in c["body"] and c["user"]["login"] == fakegithub.BOT_REST)

    def reactions(comment: int) -> list[str]:
        return [str(r["content"]) for r in fake.s.reactions.get(comment, [])]

    return Site("github", repo, head, lambda: GitHubChange(settings, sleep=_sleep),
                lambda: GitHubRepository(settings, sleep=_sleep),
                inject, comments, lambda: [str(c["body"]) for c in fake.summaries()], resolved,
                checks, replies, reactions, lambda: list(fake.s.labels.get(fake.number, [])),
                lambda: [(str(i["body"]), i["state"] == "open") for i in fake.s.issues.values()],
                lambda: [str(c["body"]) for c in fake.bot_comments()],
                lambda line: fake.s.diff["a.py"].discard(line), "failure", command, fake.number,
                fake.errors, lambda: fake.__exit__())


def gitlab_site(work: Path) -> Site:
    repo = GitRepo(work / "repo")
    repo.commit({"a.py": "\n"}, "base")
    repo.branch("feature")
    head = repo.commit({"a.py": TEXT}, "head")
    fake = fakegitlab.FakeGitLab(repo.path, late=1.2)
    fake.__enter__()
    command = int(fake.note_by(fakegitlab.HUMAN, "/help")["id"])
    change = gitlab.Settings(api_url=fake.api_url, token="glpat-bot", project="42", iid=3,
                             timeout=1.0)
    project = gitlab_repository.RepositorySettings(fake.api_url, "glpat-bot", "42", timeout=1.0)

    def inject(write: str, kind: str) -> Fault:
        fault = Fault(TARGETS["gitlab"][write], KINDS["gitlab"][kind])
        fake.faults.append(fault)
        return fault

    def comments() -> Counter[str]:
        return Counter(m.group(1) for d in fake.threads()
                       if (m := _KEY.search(str(d["notes"][0]["body"]))))

    def resolved(key: str) -> bool | None:
        for d in fake.threads():
            if f"reviewbot:fp={key} " in str(d["notes"][0]["body"]):
                return bool(d["notes"][0].get("resolved"))
        return None

    def checks() -> list[str]:
        # A commit status is set, not added: GitLab shows the latest one per name.
        named = [str(s["status"]) for s in fake.statuses if s.get("name") == "reviewbot"]
        return named[-1:]

    def replies(text: str) -> int:
        return sum(1 for n in fake.bot_notes() if text in str(n["body"]))

    return Site("gitlab", repo, head, lambda: gitlab.GitLabChange(change, sleep=_sleep),
                lambda: gitlab_repository.GitLabRepository(project, sleep=_sleep), inject, comments,
                lambda: [str(n["body"]) for n in fake.summaries()], resolved, checks, replies,
                fake.award_names, lambda: list(fake.labels),
                lambda: [(str(i["description"]), i["state"] == "opened") for i in fake.issues],
                lambda: [str(n["body"]) for d in fake.threads() for n in d["notes"][:1]],
                _no_line, "failed", command, 3, fake.errors, lambda: fake.__exit__())


def gitea_site(work: Path) -> Site:
    repo = GitRepo(work / "repo")
    repo.commit({"a.py": "\n"}, "base")
    repo.branch("feature")
    head = repo.commit({"a.py": TEXT}, "head")
    fake = fakegitea.FakeGitea(repo.path, version="1.26.0")
    command = int(fake._create_issue_comment(1, {"body": "/help"}, fakegitea.HUMAN)[1]["id"])
    settings = GiteaSettings(api_url=fakegitea.API, token="bot-token",
                             repository=fakegitea.REPOSITORY, number=1, timeout=1.0)

    def api() -> GiteaApi:
        return GiteaApi(settings, sleep=_sleep, http=fake.transport)

    def inject(write: str, kind: str) -> Armed:
        fault = fakegitea.Fault(TARGETS["gitea"][write], KINDS["gitea"][kind])
        fake.faults.append(fault)
        return fault

    def comments() -> Counter[str]:
        return Counter(m.group(1) for c in fake.bot_comments()
                       if (m := _KEY.search(str(c["body"]))))

    def resolved(key: str) -> bool | None:
        for c in fake.bot_comments():
            if f"reviewbot:fp={key} " in str(c["body"]):
                return "resolver" in c
        return None

    def replies(text: str) -> int:
        return sum(1 for c in fake.issue_comments
                   if text in c["body"] and c["user"]["id"] == fakegitea.BOT["id"])

    def labels() -> list[str]:
        names = {label["id"]: label["name"] for label in fake.labels}
        return [names[i] for i in fake.issues[1]["labels"]]

    def issues() -> list[tuple[str, bool]]:
        return [(str(i["body"]), i["state"] == "open") for n, i in fake.issues.items() if n != 1]

    return Site("gitea", repo, head, lambda: GiteaChange(settings, api=api()),
                lambda: GiteaRepository(settings, api=api()), inject, comments,
                lambda: [str(c["body"]) for c in fake.summaries()], resolved,
                lambda: [str(st["status"]) for st in fake.statuses
                         if st["context"] == "reviewbot"][-1:],
                replies, lambda cid: [str(r["content"]) for r in fake.reactions.get(cid, [])],
                labels, issues, lambda: [str(c["body"]) for c in fake.bot_comments()],
                _no_line, "failure", command, 1, fake.errors, lambda: None)


def bitbucket_site(work: Path) -> Site:
    repo = GitRepo(work / "repo")
    repo.commit({"a.py": "\n"}, "base")
    repo.branch("feature")
    head = repo.commit({"a.py": TEXT}, "head")
    fake = fakebitbucket.FakeBitbucket(repo.path)
    command = int(fake._create_comment({"content": {"raw": "/help"}}, fakebitbucket.HUMAN)[1]["id"])
    settings = BitbucketSettings(api_url=fakebitbucket.API, token="bot-token",
                                 repository=fakebitbucket.REPOSITORY, number=1, timeout=1.0)

    def api() -> BitbucketApi:
        return BitbucketApi(settings, sleep=_sleep, http=fake.transport)

    def inject(write: str, kind: str) -> Armed:
        fault = Fault(TARGETS["bitbucket"][write], KINDS["bitbucket"][kind])
        fake.faults.append(fault)
        return fault

    def inline() -> list[dict[str, object]]:
        return [c for c in fake.bot_comments() if "inline" in c]

    def comments() -> Counter[str]:
        return Counter(m.group(1) for c in inline() if (m := _KEY.search(str(c["raw"]))))

    def resolved(key: str) -> bool | None:
        for c in inline():
            if f"reviewbot:fp={key} " in str(c["raw"]):
                return "resolution" in c
        return None

    def replies(text: str) -> int:
        return sum(1 for c in fake.bot_comments() if text in str(c["raw"]))

    def issues() -> list[tuple[str, bool]]:
        return [(str(i["raw"]), i["state"] not in ("resolved", "closed"))
                for i in fake.issues.values()]

    return Site("bitbucket", repo, head, lambda: BitbucketChange(settings, api=api()),
                lambda: BitbucketRepository(settings, api=api()), inject, comments,
                lambda: [str(c["raw"]) for c in fake.bot_comments()
                         if "reviewbot:summary" in str(c["raw"])], resolved,
                lambda: [str(st["state"]) for (sha, key), st in fake.statuses.items()
                         if key == "reviewbot"][-1:],
                replies, lambda cid: [], lambda: [], issues,
                lambda: [str(c["raw"]) for c in inline()], _no_line, "FAILED", command, 1,
                fake.errors, lambda: None)


def azure_site(work: Path) -> Site:
    repo = GitRepo(work / "repo")
    repo.commit({"a.py": "\n"}, "base")
    repo.branch("feature")
    head = repo.commit({"a.py": TEXT}, "head")
    fake = fakeazure.FakeAzure(repo.path)
    settings = AzureSettings(f"{fakeazure.SERVER}/{fakeazure.ORGANIZATION}",
                             fakeazure.PROJECT, fakeazure.REPOSITORY_ID, "bot-token", 1,
                             timeout=1.0)

    def api() -> AzureApi:
        return AzureApi(settings, sleep=_sleep, http=fake.transport)

    def inject(write: str, kind: str) -> Armed:
        fault = Fault(TARGETS["azure"][write], KINDS["azure"][kind])
        fake.faults.append(fault)
        return fault

    def findings() -> list[dict[str, object]]:
        return [t for t in fake.threads if "reviewbot.fingerprint" in t["properties"]]

    def first(thread: dict[str, object]) -> str:
        return str(thread["comments"][0]["content"])  # type: ignore[index]

    def comments() -> Counter[str]:
        return Counter(m.group(1) for t in findings() if (m := _KEY.search(first(t))))

    def resolved(key: str) -> bool | None:
        for t in findings():
            if f"reviewbot:fp={key} " in first(t):
                return t["status"] == "fixed"
        return None

    def replies(text: str) -> int:
        return sum(1 for t in fake.threads if text in first(t) and not t["properties"])

    return Site("azure", repo, head, lambda: AzureChange(settings, api=api()),
                lambda: AzureRepository(settings, api=api()), inject, comments,
                lambda: [first(t) for t in fake.threads
                         if "reviewbot.summary" in t["properties"]], resolved,
                lambda: [str(st["state"]) for st in fake.statuses
                         if st["context"]["name"] == "reviewbot"][-1:],
                replies, lambda cid: [], lambda: [str(t["name"]) for t in fake.labels],
                lambda: [(html.unescape(str(i["fields"].get("System.Description"))),
                          i["fields"].get("System.State") != "Done")
                         for i in fake.work_items.values()],
                lambda: [first(t) for t in findings()], _no_line, "failed", 1, 1,
                fake.errors, lambda: None)


def _no_line(line: int) -> None:
    raise AssertionError("GitLab refuses a line with its own fault kind (line_code)")


def _sleep(seconds: float) -> None:
    """Waits are not slept: a row's retries take no time (the waits asked for are checked by
    the forge tests under tests/forges)."""


SITES: dict[Name, Callable[[Path], Site]] = {"github": github, "gitlab": gitlab_site,
                                             "gitea": gitea_site, "bitbucket": bitbucket_site,
                                             "azure": azure_site}
