"""One sweep: read the tracking issue, review the range, attribute, write the issue once.

I/O at the edges: the forge (`Repository`, `Pulls`) is passed in; the review (the pipeline's
`run_review`, as every flow calls it) and git are called here; what to say is decided by
`attribute`, `state` and `render`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Literal, Protocol

from bot import config as config_mod
from bot import git
from bot.errors import BotError, Exit, Uncertain
from bot.forges.base import PullRef
from bot.forges.repository import Issue, Repository
from bot.linters.registry import CONFIG_FILES
from bot.model import Finding, ReviewResult, Verdict
from bot.revisions import workspace
from bot.run.pipeline import Begun, ReviewOptions, again, begin, run_review
from bot.sweep import attribute, codeowners, probes, render, state
from bot.sweep.state import Regression, State

Kind = Literal["baseline", "quiet", "swept", "rebaselined"]


class Pulls(Protocol):
    def pull_of(self, sha: str) -> PullRef | None: ...


@dataclass(frozen=True)
class Options:
    repo: Path
    ref: str
    head: str  # the branch's HEAD, a full sha
    label: str
    review: ReviewOptions = field(default_factory=lambda: ReviewOptions(Path(".")))
    change: str = "#"  # how the tracking issue links a pull request: #7, or !7 on GitLab


@dataclass(frozen=True)
class Swept:
    kind: Kind
    issue: Issue | None
    open: tuple[Regression, ...] = ()
    fixed: tuple[Regression, ...] = ()
    summary: str = ""
    message: str = ""  # one line for the log
    probes: int = 0  # revisions linted to attribute findings on untouched lines


def sweep(opts: Options, repository: Repository, pulls: Pulls) -> Swept:
    marker = state.marker_prefix(opts.ref)
    issue = repository.find_issue(marker, opts.label)
    if issue is None:
        created = _create(repository, opts, marker)
        return Swept("baseline", created, message=f"baseline recorded at {opts.head[:12]} "
                                                    f"in issue #{created.number}")
    previous = state.decode(issue.body, opts.ref)
    if previous is None:
        return _rebaseline(repository, issue, opts, "The tracking issue's state could not be "
                                                    "read: a fresh baseline is recorded.")
    if previous.sha == opts.head:
        return Swept("quiet", issue, previous.open,
                       message=f"no new commit since the last sweep ({opts.head[:12]}): nothing written")
    if not _in_history(opts.repo, previous.sha, opts.head):
        return _rebaseline(repository, issue, opts, (
            f"The last swept commit {previous.sha[:12]} is no longer in the history of "
            f"{opts.ref} (a force push rewrote it): a fresh baseline is recorded, and the "
            f"{len(previous.open)} regression(s) open before it are no longer tracked."))
    return _sweep(opts, repository, pulls, issue, previous)


def _create(repository: Repository, opts: Options, marker: str) -> Issue:
    text = render.baseline_issue(opts.ref, opts.head)
    try:
        created = repository.create_issue(render.title(opts.ref), text, [opts.label])
    except Uncertain:
        # The answer was lost, not necessarily the issue: look before creating again.
        found = repository.find_issue(marker, opts.label)
        created = found or repository.create_issue(render.title(opts.ref), text, [opts.label])
    return repository.update_issue(created.number, open=False)


def _rebaseline(repository: Repository, issue: Issue, opts: Options, note: str) -> Swept:
    text = render.baseline_issue(opts.ref, opts.head, note)
    updated = repository.update_issue(issue.number, body=text, open=False)
    if issue.open:
        _comment(repository, issue.number, note)
    return Swept("rebaselined", updated, message=note)


def _comment(repository: Repository, number: int, text: str) -> None:
    """A comment after the issue's update: a lost answer is not sent again (a second sweep
    finds the issue closed already, so the comment is never doubled)."""
    with contextlib.suppress(Uncertain):
        repository.reply(number, text)


def _in_history(repo: Path, sha: str, head: str) -> bool:
    if git.is_shallow(repo):
        # actions/checkout fetches one commit: without the range's history every last sweep
        # would look rewritten, and blame would name the one commit there is.
        git.unshallow(repo, "origin")
        if git.is_shallow(repo):
            raise BotError("the checkout is shallow and could not be deepened: use "
                           "actions/checkout with fetch-depth: 0", Exit.USAGE)
    if git.rev_parse(repo, sha) is None:
        git.fetch(repo, "origin", sha)  # a single-branch clone may lack it
    return git.rev_parse(repo, sha) is not None and git.is_ancestor(repo, sha, head)


def _sweep(opts: Options, repository: Repository, pulls: Pulls, issue: Issue, previous: State
           ) -> Swept:
    """The range reviewed, then the tracking issue written once (and a closing comment)."""
    found = _review_range(opts, pulls, previous)
    page = found.page
    texts = workspace.texts(opts.repo, opts.head, sorted({r.path for r in page.open}))
    body = render.issue(page, State(opts.head, found.tools, page.open), texts)
    updated = repository.update_issue(issue.number, body=body, open=bool(page.open))
    if not page.open and issue.open:
        _comment(repository, issue.number, render.closing(opts.ref, opts.head))
    return Swept("swept", updated, page.open, page.fixed, render.summary(page),
                 f"{len(page.open)} open regression(s) ({found.new} new, {len(page.fixed)} "
                 f"fixed) in issue #{issue.number}", found.probes)


@dataclass(frozen=True)
class _Range:
    """What the review of the range since the last sweep found, to be written."""

    page: render.Page
    tools: Mapping[str, str]  # each tool's version, kept in the state
    new: int  # regressions this sweep added
    probes: int  # revisions reviewed to attribute them


def _review_range(opts: Options, pulls: Pulls, previous: State) -> _Range:
    """The head against the last swept commit: the regressions still open, fixed and new (each
    attributed), and what only new tools or settings brought."""
    # What was fixed closes regressions: every tool checks the base (ReviewOptions.fixed).
    base_opts = replace(opts.review, repo=opts.repo, base=previous.sha, head=opts.head,
                        fixed=True)
    begun = begin(base_opts)  # the settings and tools, made once: the probes take them too
    result = run_review(base_opts, begun)
    commits = git.commits_between(opts.repo, previous.sha, opts.head)
    still, fixed = carry(previous.open, result)
    attributor = _Attributor(opts, pulls, base_opts, begun, commits, result)
    known = {r.fingerprint for r in still}
    new = [attributor.regression(v) for v in sorted(result.findings, key=lambda v: v.finding.sort_key())
           if v.scope == "introduced" and v.fingerprint not in known]
    page = render.Page(opts.ref, opts.head, previous.sha, len(commits), (*still, *new),
                       tuple(fixed), _environment(opts, base_opts, previous, result),
                       _notes(result), opts.change)
    # A tool this sweep did not run (none of its files changed) keeps its earlier version.
    tools = {**previous.tools, **{t.name: t.version for t in result.tools if t.version}}
    return _Range(page, tools, len(new), attributor.probes)


def carry(open_: Sequence[Regression], result: ReviewResult
          ) -> tuple[list[Regression], list[Regression]]:
    """The regressions open before this sweep: (still open, at their new place; fixed)."""
    fixed_fps = {v.fingerprint for v in result.fixed}
    # A tool that could not check the head says nothing about what it reported before.
    unchecked = {t.name for t in result.tools if t.status != "ok"}
    fixed_keys = {_key(v.finding) for v in result.fixed}
    by_fp = {v.fingerprint: v for v in result.findings}
    by_base = {_key(v.base): v for v in result.findings if v.base is not None}
    still, fixed = [], []
    for r in open_:
        now = by_fp.get(r.fingerprint) or by_base.get(_key(render.finding_of(r)))
        if now is not None:
            f = now.finding
            still.append(replace(r, path=f.path, line=f.span.line, end_line=f.span.end_line,
                                 column=f.span.column, end_column=f.span.end_column))
        elif r.tool not in unchecked and (r.fingerprint in fixed_fps or _key(
                render.finding_of(r)) in fixed_keys):
            fixed.append(r)
        else:  # its file was not analysed (nothing changed there), or its tool failed
            still.append(r)
    return still, fixed


def _notes(result: ReviewResult) -> tuple[str, ...]:
    """What the reader must know: a tool that could not check (its regressions stay open)."""
    failed = [f"{t.name} could not check this sweep ({t.status}: {' '.join(t.message.split())[:300]}): "
              "its earlier regressions stay open, new ones may be missing"
              for t in result.tools if t.status != "ok"]
    return tuple(failed) + tuple(n for n in result.notes if "not analysed" not in n)


def _key(f: Finding) -> tuple[str, str, str, int, str]:
    """What identifies a finding when its fingerprint does not: the message as the state
    keeps it."""
    return (f.tool, f.rule, f.path, f.span.line, f.message[:state.MESSAGE_KEPT - 1])


class _Attributor:
    """Blame, else the first commit after which the finding appears; then pull and people."""

    def __init__(self, opts: Options, pulls: Pulls, base_opts: ReviewOptions, begun: Begun,
                 commits: Sequence[str], result: ReviewResult) -> None:
        self.opts, self.pulls, self.base_opts, self.begun = opts, pulls, base_opts, begun
        self.commits = list(commits)
        self.changed = {c.path: c.changed_lines for c in result.changes}
        self.probed: dict[str, frozenset[probes.Key]] = {opts.head: _introduced(result)}
        # A probe's verdicts depend on the settings and the rules it is handed (the head's) too.
        cfg = begun.settings.config
        rule_files = [git.blob_id(opts.repo, opts.head, e) for e in cfg.rules if isinstance(e, str)]
        salt = json.dumps([str(base_opts.config), base_opts.only, sorted(
            (t.name, t.version or "") for t in result.tools), _identity(cfg),
            *([rule_files] if rule_files else [])])  # none: the salt of the rules inline
        self.memo = probes.Probes(base_opts.cache_dir, salt)
        self.pull_cache: dict[str, PullRef | None] = {}
        # The first of its places that holds one, all looked at through one git process.
        found = git.cat_blobs(opts.repo, [f"{opts.head}:{p}" for p in codeowners.LOCATIONS])
        blob = next((b for b in found if b is not None), None)
        self.owners = codeowners.parse(blob.decode("utf-8", "replace")) if blob else ()
        self.probes = 0  # revisions reviewed to attribute (not found in the memo)

    def regression(self, verdict: Verdict) -> Regression:
        f = verdict.finding
        blamed = None if f.file_level else git.blame_line(self.opts.repo, self.opts.head, f.path,
                                                         f.span.line)
        line_changed = not f.file_level and f.span.line in self.changed.get(f.path, frozenset())
        found = attribute.attribute(blamed, line_changed, self.commits,
                                    lambda sha: self._present(sha, verdict))
        pull = self._pull(found.commit) if found.commit else None
        return Regression(
            verdict.fingerprint, f.tool, f.rule, f.severity.label, f.message, f.path, f.span.line,
            f.span.end_line, f.span.column, f.span.end_column, found.commit,
            git.author(self.opts.repo, found.commit) if found.commit else None,
            pull.number if pull else None, pull.author if pull else None,
            codeowners.owners(self.owners, f.path), self.opts.head)

    def _present(self, sha: str, verdict: Verdict) -> bool:
        if sha not in self.probed:
            base = self.base_opts.base or ""
            known = self.memo.get(base, sha)
            if known is None:
                self.probes += 1
                probe = replace(self.base_opts, head=sha)
                known = _introduced(run_review(probe, again(probe, self.begun)))
                self.memo.put(base, sha, known)
            self.probed[sha] = known
        f = verdict.finding
        return any(k[0] == verdict.fingerprint or k[1:] == (f.tool, f.rule, f.path, f.message)
                   for k in self.probed[sha])

    def _pull(self, sha: str) -> PullRef | None:
        if sha not in self.pull_cache:
            self.pull_cache[sha] = self.pulls.pull_of(sha)
        return self.pull_cache[sha]


def _identity(settings: config_mod.Config) -> str:
    """The settings as text that is the same in every process (sets sorted)."""
    return json.dumps(asdict(settings), sort_keys=True, default=lambda value: sorted(
        map(str, value)) if isinstance(value, frozenset | set) else str(value))


def _introduced(result: ReviewResult) -> frozenset[probes.Key]:
    return frozenset((v.fingerprint, v.finding.tool, v.finding.rule, v.finding.path,
                      v.finding.message) for v in result.findings if v.scope == "introduced")


def _environment(opts: Options, base_opts: ReviewOptions, previous: State, result: ReviewResult
                 ) -> render.Environment:
    """What only a new tool version or a new configuration brought.

    The verdict engine lints both revisions with the head's configuration and today's tools,
    so neither ever shows as a regression. A new configuration is measured on the head's own
    code: every file linted with the old settings and with the new ones (two unreferenced
    commits over an empty root), the difference reported. A tool's old version is gone: its
    change is named."""
    tools = tuple(render.ToolChange(t.name, previous.tools[t.name], t.version)
                  for t in result.tools
                  if t.version and t.name in previous.tools and previous.tools[t.name] != t.version)
    names = list(dict.fromkeys([*CONFIG_FILES, *config_mod.FILE_NAMES]))
    paths = tuple(git.changed_paths(opts.repo, previous.sha, opts.head, names))
    if not paths:
        return render.Environment(tools=tools)
    root = git.empty_commit(opts.repo)
    old = {p: git.blob_id(opts.repo, previous.sha, p) for p in paths}
    with_new = git.tree_commit(opts.repo, opts.head, {}, root)
    with_old = git.tree_commit(opts.repo, opts.head, old, root)
    old_opts = replace(base_opts, base=root, head=with_old)
    new_opts = replace(base_opts, base=root, head=with_new)
    begun = begin(old_opts)
    before = run_review(old_opts, begun)
    # Each tree's own settings: a new .reviewbot.yml (or rule file) is one of the changes
    # measured. Where the change holds none, the trees' settings and tools are the same ones.
    rule_files = {PurePosixPath(e).as_posix() for e in begun.settings.config.rules
                  if isinstance(e, str)}
    same = base_opts.config is None and not {*config_mod.FILE_NAMES, *rule_files} & set(paths)
    after = run_review(new_opts, again(new_opts, begun) if same else None)
    # A regression of new code under a new rule is the code's: it is in the table already.
    seen = {_key(v.finding) for v in before.findings} | {
        _key(v.finding) for v in result.findings if v.scope == "introduced"}
    brought = tuple(v.finding for v in after.findings
                    if _key(v.finding) not in seen and v.finding.path not in paths)
    return render.Environment(paths, tools, brought)

