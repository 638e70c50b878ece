"""The forge rows of the fault matrix: every write the bot makes (the review with its inline
comments, the summary and its edit, a comment's edit, a thread's resolution, the check run or
commit status, a reply, a reaction, a label added or removed, the sweep's issue created and
updated), on GitHub, GitLab and Gitea, under each fault the forge can answer with (5xx before and
after the write took effect, a timeout before and after, the rate limits with their real
headers, a comment refused for its line, the comment or thread deleted just before the write);
and the apply flow's push refused by the remote (a pre-receive hook, the lease).

Each row runs the bot's own code (the publish step `bot.publishing.sync.publish`, reached
through the tests' shortcut `tests.publishing.shortcut.review`, `Change.check`, the
`Repository` writes, the sweep `bot.sweep.flow.sweep`) against the validating fake with the
fault armed, then runs it again clean (a re-run of the job), and counts what the forge then
holds: a finding neither commented nor in the summary, a command not answered, a label or an
issue missing is lost; a second comment, summary, reply, reaction, check run or issue for one
thing is duplicated. A row keeps its promise with 0 lost, 0 duplicated, a clean re-run that
succeeds, the fault hit, no request the forge's description refuses, and no traceback.

`python -m tests.faults.forges` prints the table; tests/faults/test_forge_matrix.py holds
every row to its promise; `scripts/fault-matrix` prints it after the other rows."""

from __future__ import annotations

import contextlib
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bot import git as gitcmd
from bot.errors import BotError
from bot.forges.base import Annotation, PullRef, StatusReport
from bot.model import ReviewResult, Severity
from bot.publishing.gate import Gate
from bot.publishing.policy import Policy
from bot.sweep import flow as sweeping
from tests.apply.conftest import FEAT, build
from tests.apply.conftest import git as sh
from tests.faults import applies
from tests.faults.sites import ABSENT, KINDS, SITES, Armed, Name, Site
from tests.forges.builders import change, finding, result, texts, verdict
from tests.forges.loopback import Fault
from tests.publishing.shortcut import review

PUBLISH = ("review", "summary", "summary edit", "comment edit", "resolve")
WRITES = (*PUBLISH, "check run", "reply", "reaction", "label add", "label remove",
          "issue create", "issue update")
COMMON = ("5xx before", "5xx after", "timeout before", "timeout after")
# The faults that only some writes can meet: a line refused (one comment of a review), the
# comment or thread gone (what is edited, resolved, reacted to).
ONLY = {"400 line_code": ("review",), "422 one comment": ("review",),
        "404 deleted": ("summary edit", "comment edit", "resolve", "reaction")}
REPLY = "Commands: /help, /review, /fix"


# The push goes to a git remote, whatever the forge: its faults are the remote's refusals.
PUSH_FAULTS = ("pre-receive hook refuses once", "lease: pushed meanwhile")
REFUSING_HOOK = """#!/bin/sh
# Refuses the first push it sees (a 409-like rejection: a check that was busy), then passes.
if [ ! -e "$GIT_DIR/refused-once" ]; then
  touch "$GIT_DIR/refused-once"
  echo "rejected: the branch is being checked, push again" >&2
  exit 1
fi
"""


@dataclass(frozen=True)
class Case:
    forge: Name | Literal["git"]
    write: str
    fault: str

    @property
    def name(self) -> str:
        return f"{self.forge} {self.write}: {self.fault}"


@dataclass(frozen=True)
class Row:
    case: Case
    outcome: str  # each run's end, the faulted one first
    lost: int
    duplicated: int
    hit: bool  # the fault met the write
    invalid: tuple[str, ...]  # requests the forge's description refuses
    crashed: str = ""

    @property
    def kept(self) -> bool:
        # "404 deleted": the run goes on (no error) as well as the re-run.
        goes_on = self.case.fault != "404 deleted" or "exit" not in self.outcome
        return (self.lost == 0 and self.duplicated == 0 and self.hit and not self.invalid
                and not self.crashed and self.outcome.endswith("ok") and goes_on)


def cases() -> list[Case]:
    out = []
    for forge, kinds in KINDS.items():
        faults = [*kinds, *(["422 one comment"] if forge == "github" else [])]
        for write in (w for w in WRITES if w not in ABSENT.get(forge, ())):
            for fault in faults:
                if fault in ONLY and write not in ONLY[fault]:
                    continue
                out.append(Case(forge, write, fault))
    return out + [Case("git", "push", fault) for fault in PUSH_FAULTS]


CASES = cases()


def run(case: Case) -> Row:
    with tempfile.TemporaryDirectory(prefix="forgefault-") as work:
        if case.forge == "git":
            return _push(case, Path(work))
        site = SITES[case.forge](Path(work))
        try:
            return _measure(case, site)
        finally:
            site.stop()


def _measure(case: Case, site: Site) -> Row:
    armed: list[Armed] = []

    def arm() -> None:
        if case.fault == "422 one comment":  # GitHub's own 422: line 4 is not in its diff
            armed.append(Fault("line 4", "422", hit=1))
            site.refuse_line(4)
        else:
            armed.append(site.inject(case.write, case.fault))

    outcomes: list[str] = []
    crashed = ""

    def attempt(write: Callable[[], str]) -> str:
        nonlocal crashed
        try:
            outcomes.append(write())
        except BotError as exc:
            outcomes.append(f"exit {int(exc.code)}: {exc.message[:50]}")
        except Exception as exc:  # a traceback in the bot: the row shows it
            crashed = crashed or f"{type(exc).__name__}: {exc}"[:90]
            traceback.print_exc(file=sys.stderr)
            outcomes.append("crashed")
        return outcomes[-1]

    lost, duplicated = _SCENARIOS[_group(case.write)](case, site, arm, attempt)
    return Row(case, ", then ".join(outcomes), lost, duplicated,
               all(f.hit for f in armed) and bool(armed), tuple(site.errors), crashed)


Attempt = Callable[[Callable[[], str]], str]


def _group(write: str) -> str:
    return "publish" if write in PUBLISH else write.split()[0]


def _findings(head: str, shift: str = "", fixed: bool = False, grown: bool = False
              ) -> ReviewResult:
    lines = [n for n in range(1, 7) if not (fixed and n == 1)] + ([10] if grown else [])
    found = [verdict(finding("a.py", n, message=f"v{n} is unused{shift if n == 2 else ''}"),
                     f"fp-{n}") for n in lines]
    return result(head, found, [change("a.py", range(1, 21))])


def _publish(case: Case, site: Site, arm: Callable[[], None], attempt: Attempt
             ) -> tuple[int, int]:
    first = _findings(site.head)
    later = {"review": first, "summary": first, "summary edit": _findings(site.head, grown=True),
             "comment edit": _findings(site.head, shift=", changed"),
             "resolve": _findings(site.head, fixed=True)}[case.write]
    source = texts(site.repo.path, site.head, ["a.py"])

    def publish(res: ReviewResult) -> Callable[[], str]:
        def go() -> str:
            done = review(site.forge(), res, source, Policy(), Gate(0, "error"), settle=0,
                          sleep=lambda s: None)
            return "ok" if done.status == "published" else done.status
        return go

    if case.write not in ("review", "summary"):
        publish(first)()  # what the faulted run finds: the first review, published cleanly
    arm()
    attempt(publish(later))
    attempt(publish(later))  # the clean re-run
    counts = site.comments()
    summaries = site.summaries()
    shown = "\n".join([*summaries, *site.bodies()])
    lost = sum(1 for v in later.findings if v.finding.message not in shown)
    lost += 0 if summaries else 1
    if case.write == "resolve" and site.resolved("fp-1") is False:
        lost += 1  # fp-1 is fixed: its thread must end resolved
    return lost, sum(n - 1 for n in counts.values() if n > 1) + max(0, len(summaries) - 1)


def _check(case: Case, site: Site, arm: Callable[[], None], attempt: Attempt
           ) -> tuple[int, int]:
    notes = tuple(Annotation("a.py", n, n, Severity.ERROR, "ruff F841", f"v{n} is unused")
                  for n in range(1, 61))  # more than one request's 50
    report = StatusReport("reviewbot", site.head, "failure", "failing: 60 new", "body", notes)

    def check() -> str:
        return "ok" if site.forge().check(report) else "refused"

    arm()
    attempt(check)
    made = len(site.checks())
    attempt(check)
    conclusions = site.checks()
    # Each run makes one check run of its own (GitHub shows the latest of a name); a commit
    # status is set, not added (the site reads GitLab's latest).
    again = len(conclusions) - made
    return ((0 if conclusions[-1:] == [site.failed] else 1),
            max(0, made - 1) + max(0, again - (1 if site.name == "github" else 0)))


def _reply(case: Case, site: Site, arm: Callable[[], None], attempt: Attempt
           ) -> tuple[int, int]:
    def say() -> str:
        site.repository().reply(site.number, REPLY)
        return "ok"

    arm()
    # A job that failed is run again (and answers again); one that answered is not.
    answered = attempt(say) == "ok"
    attempt((lambda: "not re-run: ok") if answered else say)
    count = site.replies(REPLY)
    return (1 if count == 0 else 0), max(0, count - 1)


def _reaction(case: Case, site: Site, arm: Callable[[], None], attempt: Attempt
              ) -> tuple[int, int]:
    def react() -> str:
        site.repository().react(site.number, site.command, "eyes")
        return "ok"

    arm()
    attempt(react)
    attempt(react)
    given = site.reactions(site.command)
    gone = case.fault == "404 deleted"  # nothing left to react to
    return (0 if gone or "eyes" in given else 1), max(0, given.count("eyes") - 1)


def _label(case: Case, site: Site, arm: Callable[[], None], attempt: Attempt
           ) -> tuple[int, int]:
    name = "reviewbot:apply"

    def add() -> str:
        site.repository().add_label(site.number, name)
        return "ok"

    def remove() -> str:
        site.repository().remove_label(site.number, name)
        return "ok"

    write = add if case.write == "label add" else remove
    if write is remove:
        add()
    arm()
    attempt(write)
    attempt(write)
    count = site.labels().count(name)
    if write is add:
        return (1 if count == 0 else 0), max(0, count - 1)
    return (1 if count else 0), 0


class _NoPulls:
    def pull_of(self, sha: str) -> PullRef | None:
        return None


def _issue(case: Case, site: Site, arm: Callable[[], None], attempt: Attempt
           ) -> tuple[int, int]:
    opts = sweeping.Options(site.repo.path, "main", site.head, "reviewbot:regressions")

    def sweep() -> str:
        sweeping.sweep(opts, site.repository(), _NoPulls())
        return "ok"

    arm()
    attempt(sweep)
    attempt(sweep)
    mine = [(body, is_open) for body, is_open in site.issues() if "reviewbot:sweep" in body]
    # The baseline's issue: one, closed (nothing to track yet).
    return (0 if mine and not any(o for _, o in mine) else 1), max(0, len(mine) - 1)


def _push(case: Case, work: Path) -> Row:
    """The apply flow's push refused: the reply (the outcome's message) says nothing was
    pushed and why; nothing of anyone's is lost; run again, one commit lands (or, when the
    branch moved, the other push stays and none of ours is added)."""
    pr = build(work / "pr", FEAT)
    hit = False
    outcomes = []
    if case.fault.startswith("pre-receive"):
        hook = pr.origin / "hooks" / "pre-receive"
        hook.write_text(REFUSING_HOOK)
        hook.chmod(0o755)
        first = applies.apply(pr)
        hit = (pr.origin / "refused-once").exists()
        said = "Nothing was pushed" in first.message and "being checked" in first.message
        outcomes.append(f"{first.status}" + ("" if said else " (the reply does not say why)"))
        again = applies.apply(pr)
        outcomes.append("ok" if again.status == "pushed" else again.status)
        above = int(sh(pr.origin, "rev-list", "--count", f"{pr.head}..refs/heads/feat"))
        return Row(case, ", then ".join(outcomes), int(above == 0 or not said),
                   max(0, above - 1), hit, ())
    real = gitcmd.git
    theirs: list[str] = []

    def meanwhile(*args: Any, **kwargs: Any) -> Any:
        if "push" in args and not theirs:  # someone pushes just before the bot does
            (pr.dev / "other.txt").write_text("theirs\n")
            sh(pr.dev, "add", "other.txt")
            sh(pr.dev, "commit", "-qm", "theirs")
            sh(pr.dev, "push", "-q", "origin", "feat")
            theirs.append(sh(pr.dev, "rev-parse", "HEAD"))
        return real(*args, **kwargs)

    with applies.wrapped(meanwhile):
        first = applies.apply(pr)
    said = "moved" in first.message and "Nothing was pushed" in first.message
    outcomes.append(f"{first.status}" + ("" if said else " (the reply does not say why)"))
    now = sh(pr.origin, "rev-parse", "refs/heads/feat")
    # Theirs is on the branch as they pushed it, and nothing of ours on top of it.
    outcomes.append("ok" if now == theirs[0] else f"branch at {now[:12]}")
    return Row(case, ", then ".join(outcomes), int(now != theirs[0] or not said), 0,
               bool(theirs), ())


_SCENARIOS = {"publish": _publish, "check": _check, "reply": _reply, "reaction": _reaction,
              "label": _label, "issue": _issue}


def table(rows: list[Row]) -> str:
    head = ("forge", "write", "fault", "outcome (faulted run, then re-run)", "lost",
            "duplicated", "kept")
    body = [(r.case.forge, r.case.write, r.case.fault,
             (r.outcome + (f" [{r.crashed}]" if r.crashed else "")
              + ("" if r.hit else " [fault never met]")
              + (f" [invalid: {'; '.join(r.invalid)[:60]}]" if r.invalid else "")),
             str(r.lost), str(r.duplicated), "yes" if r.kept else "NO") for r in rows]
    widths = [max(len(line[i]) for line in (head, *body)) for i in range(len(head))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in (head, *body)]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def totals(rows: list[Row]) -> str:
    return (f"{len(rows)} forge rows: {sum(r.lost for r in rows)} lost, "
            f"{sum(r.duplicated for r in rows)} duplicated, "
            f"{sum(1 for r in rows if not r.kept)} broken")


def main(argv: list[str]) -> int:
    """The rows whose name holds every word given (all rows without one)."""
    chosen = [c for c in CASES if all(word in c.name for word in argv)]
    rows = []
    for case in chosen:
        with contextlib.redirect_stdout(sys.stderr):  # the bot's own log lines
            rows.append(run(case))
    print(table(rows))
    print(totals(rows))
    return 0 if all(r.kept for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
