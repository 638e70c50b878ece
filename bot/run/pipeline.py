"""The core review: resolve revisions, detect tools, collect at base and head, classify.

`run_review` is what every front end (terminal, GitHub, GitLab) calls; it returns a
`ReviewResult` and prints nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from bot import config as config_mod
from bot import git
from bot.analyzer import Analyzer, Outcome, Resolution, Target
from bot.errors import BotError
from bot.linters.registry import CONFIG_FILES, LINTERS
from bot.linters.registry import declared as declared_linters
from bot.linters.runner import folders
from bot.lsp.registry import SERVERS
from bot.model import Finding, GatePolicy, ReviewResult, Side, ToolRun, ToolStatus
from bot.revisions import workspace
from bot.revisions.evidence import Evidence
from bot.safety import guard
from bot.structural import TOOL as RULES_TOOL
from bot.verdicts.classify import Inputs, classify

if TYPE_CHECKING:
    from bot.run import shards  # imported where a run is sharded: a review of all its files never is

HINT_NOTHING = (
    "no linter is configured for the changed files: add a ruff section to pyproject.toml "
    "([tool.ruff]), an eslint.config.js or a biome.json (see README, 'Tools')"
)


@dataclass(frozen=True)
class ReviewOptions:
    """What a review is asked for: the revisions, the settings, the tools and their limits."""

    repo: Path
    base: str | None = None
    head: str = "HEAD"
    config: Path | None = None
    only: tuple[str, ...] | None = None  # restrict to these tools
    timeout: float | None = None  # overrides the configuration
    cache_dir: Path | None = None
    analyzers: Mapping[str, Analyzer] | None = None  # replaces the registry (tests)
    # The command line's choices on top of the configured gate policy.
    policy: Callable[[GatePolicy], GatePolicy] | None = None
    # Told of each tool as it starts (None) and ends (its ToolRun, timed): progress lines.
    progress: Callable[[str, ToolRun | None], None] | None = None
    # Only this shard's part of the work (bot.run.shards); classification waits for all parts.
    shard: shards.Shard | None = None
    # Every finding the change fixed is wanted (a sweep closes them): else a language server
    # leaves the base out when the head has nothing to classify (Target.fixed).
    fixed: bool = False


@dataclass(frozen=True)
class Gathered:
    """Everything a review computed before classifying: the findings of each revision, what
    failed, the change and its files (the classifier's inputs), and the rest of the result."""

    rev: workspace.Revisions
    changes: workspace.Changes
    evidence: Evidence  # the change's, with the files tools reported beyond it
    runs: tuple[ToolRun, ...]
    base: tuple[Finding, ...]
    head: tuple[Finding, ...]
    unbaselined: frozenset[tuple[str, str]]  # (tool, path) without a result at one revision
    notes: tuple[str, ...]
    policy: GatePolicy
    plan: str = ""  # the shard plan's fingerprint (bot.run.shards.plan_id); empty when unsharded


def registry() -> dict[str, Analyzer]:
    """Every linter and language server the bot knows, by tool name."""
    return {**LINTERS, **SERVERS}


def _config_files(analyzers: Mapping[str, Analyzer], changed: Sequence[str]) -> list[str]:
    """The config files the base takes from the head: at the root, and in every project folder
    above a changed file (a monorepo's projects hold their own)."""
    names = list(CONFIG_FILES)
    for analyzer in analyzers.values():
        names += [n for n in analyzer.config_files if n not in names]
    nested = [f"{folder}/{name}" for folder in folders(changed)[1:] for name in names
              if "/" not in name]
    return names + nested


def _merge_status(name: str, version: str | None, base: Outcome, head: Outcome) -> ToolRun:
    sides: list[tuple[Side, Outcome]] = [("base", base), ("head", head)]
    bad = [(side, o) for side, o in sides if o.status in ("timeout", "failed")]
    if not bad:
        return ToolRun(name, version, "ok", head.note or base.note)
    status: ToolStatus = "timeout" if any(o.status == "timeout" for _, o in bad) else "failed"
    message = "\n".join(f"at the {side}: {o.message}" for side, o in bad)
    return ToolRun(name, version, status, message, tuple(side for side, _ in bad))


def tool_names(analyzers: Mapping[str, Analyzer]) -> frozenset[str]:
    """Every tool a review may run here: the analyzers and the repository's rules."""
    return frozenset(analyzers) | {RULES_TOOL}


def check_only(only: Sequence[str] | None, known: frozenset[str]) -> None:
    for name in only or ():
        if name not in known:
            raise BotError(f"--only {name}: no such tool{config_mod.did_you_mean(name, known)}; "
                           f"known: {', '.join(sorted(known))}")


def _collect(analyzer: Analyzer, resolution: Resolution, base: Target, head: Target
             ) -> tuple[Outcome, Outcome]:
    try:  # one run for both revisions, where the tool can
        both = analyzer.collect_pair(base, head, resolution)
    except Exception as exc:  # a broken adapter must not take the other tools down
        failed = [Outcome(analyzer.name, "failed", message=f"{type(exc).__name__}: {exc}",
                          failed_paths=frozenset(t.paths)) for t in (base, head)]
        return failed[0], failed[1]
    if both is not None:
        return both
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(_safe_collect, analyzer, t, resolution) for t in (base, head)]
        return futures[0].result(), futures[1].result()


@dataclass(frozen=True)
class _Prepared:
    """A tool ready to run: found, with its targets at both revisions."""

    analyzer: Analyzer
    resolution: Resolution
    base: Target
    head: Target
    started: float  # time.monotonic() when it was looked for


def _collect_all(ready: Sequence[_Prepared], ended: dict[str, float]
                 ) -> list[tuple[Outcome, Outcome]]:
    """Each tool at both revisions, all at once: (base, head) in their order; `ended` gets
    when each tool ended."""
    def one(r: _Prepared) -> tuple[Outcome, Outcome]:
        pair = _collect(r.analyzer, r.resolution, r.base, r.head)
        ended[r.analyzer.name] = time.monotonic()
        return pair

    with ThreadPoolExecutor(max_workers=len(ready) or 1) as pool:
        return list(pool.map(one, ready))


def _safe_collect(analyzer: Analyzer, target: Target, resolution: Resolution) -> Outcome:
    try:
        return analyzer.collect(target, resolution)
    except Exception as exc:  # a broken adapter must not take the other tools down
        return Outcome(analyzer.name, "failed", message=f"{type(exc).__name__}: {exc}",
                       failed_paths=frozenset(target.paths))


def run_review(opts: ReviewOptions, begun: Begun | None = None) -> ReviewResult:
    """The review of `opts`; `begun`: its revisions, settings and tools, when the caller has
    them."""
    return conclude(gather(opts, begun or begin(opts)))


def conclude(gathered: Gathered) -> ReviewResult:
    """The verdicts of everything gathered, as the review's result."""
    verdicts, fixed, class_notes = classify(Inputs(gathered.base, gathered.head,
                                                   gathered.evidence, gathered.unbaselined))
    rev, changes = gathered.rev, gathered.changes
    return ReviewResult(
        base_ref=rev.base_ref, merge_base=rev.merge_base, head=rev.head, tools=gathered.runs,
        findings=tuple(verdicts), fixed=tuple(fixed), changes=changes.file_changes(),
        notes=tuple(gathered.notes) + tuple(class_notes),
        unbaselined=frozenset(p for _, p in gathered.unbaselined), policy=gathered.policy,
        unchecked=tuple(f"{path}: {changes.skipped[path]}" for path in sorted(changes.unchecked)),
    )


@dataclass(frozen=True)
class Begun:
    """Where a review starts: its revisions resolved, its settings read and the tools they
    choose made (the repository's rules compiled), once, by whoever starts it. A flow that
    needs the settings itself, or reviews several heads with them, hands these down."""

    rev: workspace.Revisions
    settings: config_mod.Reviewed
    analyzers: Mapping[str, Analyzer]  # the tools this review may run, by name


def begin(opts: ReviewOptions, settings: config_mod.Reviewed | None = None) -> Begun:
    """The revisions of `opts`, the settings between them (`config.for_review`), or
    `settings` when the caller read them already, and the tools they choose. A bad rule or
    an unknown --only tool stops here, before any file of the change is read."""
    rev = workspace.resolve(opts.repo, opts.base, opts.head)
    analyzers = _analyzers(opts)
    if settings is None:
        settings = config_mod.for_review(rev.repo, rev.merge_base, rev.head, opts.config,
                                         tool_names(analyzers))
    return Begun(rev, settings, _chosen(opts, analyzers, rev, settings.config))


def again(opts: ReviewOptions, begun: Begun) -> Begun:
    """Another review of the same run (another head, say): its own revisions, with the
    settings and the tools `begun` holds (the rules compiled once, from its head)."""
    return replace(begun, rev=workspace.resolve(opts.repo, opts.base, opts.head))


def _analyzers(opts: ReviewOptions) -> dict[str, Analyzer]:
    return dict(opts.analyzers) if opts.analyzers is not None else registry()


def _chosen(opts: ReviewOptions, analyzers: dict[str, Analyzer], rev: workspace.Revisions,
            cfg: config_mod.Config) -> dict[str, Analyzer]:
    """The tools this review may run: the known ones and the repository's own (declared
    linters, rules), less those switched off or left out by --only."""
    known = tool_names(analyzers)
    analyzers.update(declared_linters(cfg.declared))  # the repository's own, from the head
    check_only(opts.only, known | set(analyzers))
    if cfg.rules:
        # Imported here: tree-sitter and the grammars load only for repositories with rules.
        from bot.structural.analyzer import RulesAnalyzer

        files = RulesAnalyzer.files(cfg.rules)  # read from the head through one process
        blobs = dict(zip(files, git.cat_blobs(rev.repo, [f"{rev.head}:{p}" for p in files]),
                         strict=True))
        rules_tool = RulesAnalyzer.from_settings(cfg.rules, blobs.get)
        analyzers[rules_tool.name] = rules_tool
    return {n: a for n, a in analyzers.items()
            if n not in cfg.disabled and (opts.only is None or n in opts.only)}


@dataclass
class ToolRuns:
    """The runs of one review's tools: each found and given its targets at both revisions
    (`prepare`), run, and what it found and failed on recorded (`record`)."""

    opts: ReviewOptions
    rev: workspace.Revisions
    trees: workspace.Checkouts
    changes: workspace.Changes
    mine: dict[str, frozenset[str]] | None  # the files each tool checks in this shard
    timeout: float
    # A tool run in the user's checkout must leave it as it was (bot.safety.guard).
    watch: guard.Watch
    whole_anyway: bool = False  # the whole base is made anyway (see `run`)
    # What each tool run so far checked, per revision (Target.checked).
    checked: dict[Side, dict[str, frozenset[str]]] = field(
        default_factory=lambda: {"base": {}, "head": {}})
    done: dict[str, ToolRun] = field(default_factory=dict)
    base: list[Finding] = field(default_factory=list)
    head: list[Finding] = field(default_factory=list)
    unbaselined: set[tuple[str, str]] = field(default_factory=set)
    extra_paths: set[str] = field(default_factory=set)  # reported beyond the change's files

    def run(self, applicable: Sequence[Analyzer]) -> list[ToolRun]:
        """Each of this shard's tools at both revisions, in order of their names."""
        own_work = [a for a in applicable
                    if self.mine is None or self.mine.get(a.name, frozenset())]  # else another's
        # The whole base is made anyway for a tool that needs the project when it is made
        # up front or nothing is cached: the tools that read one file at a time use it too,
        # rather than a tree of the changed files' folders beside it.
        self.whole_anyway = any(not a.lazy_checkout for a in own_work) or (
            self.opts.cache_dir is None and any(not a.file_scoped for a in own_work))
        # Tools that neither write into the checkout nor read another's results start at once,
        # each run of theirs waiting for a core (proc.tool_slot); the others follow, in turn.
        names = {a.name for a in own_work}
        wave = [a for a in own_work if a.read_only and not set(a.defers_to) & names]
        if len(wave) > 1:
            self._together(wave)
        for analyzer in own_work:
            if analyzer.name not in self.done:
                self._alone(analyzer)
        return [self.done[a.name] for a in own_work]

    def _together(self, wave: Sequence[Analyzer]) -> None:
        ready = [p for a in wave if (p := self.prepare(a)) is not None]
        ended: dict[str, float] = {}
        results = guard.around_all(self.watch, [(r.analyzer.name, r.head.paths) for r in ready],
                                   lambda: _collect_all(ready, ended))
        for r, (base_o, head_o) in zip(ready, results, strict=True):
            self.done[r.analyzer.name] = self.record(r, base_o, head_o, ended[r.analyzer.name])

    def _alone(self, analyzer: Analyzer) -> None:
        step = self.prepare(analyzer)
        if step is None:
            return
        base_o, head_o = guard.around(
            self.watch, analyzer.name, step.head.paths,
            lambda: _collect(step.analyzer, step.resolution, step.base, step.head))
        self.done[analyzer.name] = self.record(step, base_o, head_o, time.monotonic())

    def prepare(self, analyzer: Analyzer) -> _Prepared | None:
        """The tool found and its targets made; None: it cannot run (`done` says why)."""
        opts, trees = self.opts, self.trees
        started = time.monotonic()
        if opts.progress is not None:
            opts.progress(analyzer.name, None)
        resolution, probed = guard.probing(self.watch, analyzer.name,
                                           partial(analyzer.resolve, trees.head_root, opts.cache_dir))
        if probed:
            self.done[analyzer.name] = _timed(ToolRun(analyzer.name, resolution.version, "failed",
                                                      probed, ("head",)), started, opts)
            return None
        if resolution.executable is None:
            hint = resolution.install_hint  # none: the message says what to do
            self.done[analyzer.name] = _timed(ToolRun(
                analyzer.name, None, "missing", f"{resolution.message}; install it with: {hint}"
                if hint else resolution.message), started, opts)
            return None
        head_t, base_t = self._targets(analyzer)
        return _Prepared(analyzer, resolution, base_t, head_t, started)

    def _targets(self, analyzer: Analyzer) -> tuple[Target, Target]:
        """The tool's targets at the head and at the base (this shard's files only)."""
        opts, rev, trees, changes = self.opts, self.rev, self.trees, self.changes
        own = None if self.mine is None else self.mine.get(analyzer.name, frozenset())
        head_paths, base_paths = changes.head_paths(), changes.base_paths()
        head_t = Target(trees.head_root, rev.head,
                        tuple(p for p in head_paths if own is None or p in own), "head",
                        timeout=self.timeout, cache_dir=opts.cache_dir, repo=rev.repo,
                        changed=tuple(changes.paths()),
                        installed=trees.installed, checked=dict(self.checked["head"]),
                        fixed=opts.fixed)
        pair_of = changes.evidence.reverse()
        mine_base = tuple(p for p in base_paths if own is None or pair_of.get(p, p) in own)
        if analyzer.lazy_checkout:
            # Made only if something misses the cache (see Target.ready); for a tool that
            # reads one file at a time, only the changed files' folders (bot.revisions.partial).
            small = analyzer.file_scoped and not self.whole_anyway
            return head_t, replace(head_t, root=trees.files_root if small else trees.base_root,
                                   rev=rev.merge_base, paths=mine_base, side="base",
                                   prepare=trees.files_base if small else trees.base,
                                   view=trees.base_view, checked=dict(self.checked["base"]))
        return head_t, replace(head_t, root=trees.base(), rev=rev.merge_base, paths=mine_base,
                               side="base", checked=dict(self.checked["base"]))

    def record(self, ready: _Prepared, base_o: Outcome, head_o: Outcome, ended: float) -> ToolRun:
        name = ready.analyzer.name
        self.base.extend(base_o.findings)
        self.head.extend(head_o.findings)
        self.extra_paths |= base_o.extra_paths | head_o.extra_paths
        unread = base_o.unread_paths | head_o.unread_paths
        sides: list[tuple[Side, Target, Outcome]] = [("base", ready.base, base_o),
                                                     ("head", ready.head, head_o)]
        for side, target, o in sides:
            if o.status == "ok":
                self.checked[side][name] = frozenset(target.paths) - o.failed_paths - unread
        names = {name} | {f.tool for f in (*base_o.findings, *head_o.findings)}
        for o in (base_o, head_o):
            self.unbaselined |= {(n, p) for p in o.failed_paths for n in names}
        return _timed(_merge_status(name, head_o.version or ready.resolution.version,
                                    base_o, head_o), ready.started, self.opts, ended)


def gather(opts: ReviewOptions, begun: Begun) -> Gathered:
    """Every tool `begun` chose at both revisions of `begun`, before any verdict."""
    rev, settings, analyzers = begun.rev, begun.settings, begun.analyzers
    cfg = settings.config
    changes = workspace.read_changes(rev)
    notes = [f"{path}: not analysed ({why})" for path, why in sorted(changes.skipped.items())]
    notes += settings.notes
    changed = tuple(changes.paths())
    with workspace.checkouts(rev, _config_files(analyzers, changed), changes.touched()) as trees:
        applicable = [a for _, a in sorted(analyzers.items())
                      if a.applies(trees.head_root, changed)]
        # Tools that never write into the files they check let the base share the head's.
        trees.read_only = all(a.read_only for a in applicable)
        if not applicable and not changes.patches:
            notes.append("no changes between the merge base and the head")
        elif not applicable:
            notes.append(HINT_NOTHING)
        mine, plan = None, ""  # unsharded: every file, no plan
        if opts.shard is not None:
            from bot.run import shards

            mine, plan = shards.plan(opts.shard, applicable, changes, trees.head_root,
                                     only=opts.only, timeout=opts.timeout, config=opts.config)
        watch = (guard.Watch(rev.repo, trees.head_status) if trees.head_root == rev.repo
                 else guard.Watch(None))
        runs = ToolRuns(opts, rev, trees, changes, mine, opts.timeout or cfg.timeout, watch)
        done = runs.run(applicable)
    held = changes.evidence
    extra = sorted(runs.extra_paths - set(held.head_files) - set(held.base_files))
    evidence = workspace.with_unchanged(rev, held, extra)  # files reported beyond the change
    policy = cfg.policy if opts.policy is None else opts.policy(cfg.policy)
    return Gathered(rev, changes, evidence, tuple(done), tuple(runs.base), tuple(runs.head),
                    frozenset(runs.unbaselined), tuple(notes), policy, plan)


def _timed(run: ToolRun, started: float, opts: ReviewOptions, ended: float | None = None
           ) -> ToolRun:
    """`run` with the seconds from `started` to `ended` (now), told to the progress listener."""
    timed = replace(run, seconds=round((time.monotonic() if ended is None else ended) - started, 3))
    if opts.progress is not None:
        opts.progress(run.name, timed)
    return timed
