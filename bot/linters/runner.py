"""`LinterAnalyzer`: any `LinterSpec` as an `Analyzer`, with the shared run, timeout and
garbage handling, the findings cache (keys from blob ids, so a warm base needs no checkout),
and one run for both revisions where the tool allows it.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from bot import proc
from bot.analyzer import Analyzer, Outcome, Resolution, Survey, Target, TreeView
from bot.cache import FindingsCache, binary_stamp, blobs_hash, make_key
from bot.errors import GarbageOutput, MissingBinary, Timeout
from bot.linters import memory
from bot.linters.base import LinterSpec, Unit, named_back, owner, parse_version
from bot.linters.bisect import Attempt, Failure, isolate
from bot.linters.memory import HeavyGate
from bot.linters.messages import explain
from bot.model import Finding
from bot.revisions.trees import DiskView
from bot.toolpath import find_executable

CACHE_SALT = "linters-3"  # bump when the bot's own flags or parsing change what a run yields
# Findings read per file and per collect: beyond, the file is not checked (failed), never
# silently cut short, and memory stays bounded whatever a tool prints.
MAX_PER_FILE = 10_000
MAX_PER_RUN = 50_000


def _config_candidates(spec: LinterSpec, folder: str) -> list[str]:
    """The config files that may apply in `folder`: at the root and in every folder down to it."""
    parts = PurePosixPath(folder).parts
    folders = ["."] + ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return [f"{f}/{name}" for f in dict.fromkeys(folders) for name in spec.config_files]


def _config_hash(view: TreeView, spec: LinterSpec, folder: str) -> str:
    candidates = _config_candidates(spec, folder)
    blobs = view.blobs(candidates)
    return blobs_hash({p: blobs[p] for p in candidates if p in blobs})


@dataclass
class _Run:
    """Accumulates one collect: findings, failures, messages, worst status."""

    findings: list[Finding] = field(default_factory=list)
    failed: set[str] = field(default_factory=set)
    kept: int = 0  # findings read by invocations (cache hits excluded), for MAX_PER_RUN
    messages: list[str] = field(default_factory=list)
    status: Literal["ok", "failed", "timeout"] = "ok"

    def fail(self, paths: Sequence[str], message: str, timeout: bool = False) -> None:
        self.failed.update(paths)
        self.messages.append(message)
        if timeout:
            self.status = "timeout"
        elif self.status == "ok":
            self.status = "failed"


@dataclass(frozen=True)
class LinterAnalyzer(Analyzer):
    """Adapts a `LinterSpec` to the `Analyzer` protocol."""

    spec: LinterSpec

    @property
    def config_files(self) -> tuple[str, ...]:
        return self.spec.config_files

    @property
    def read_only(self) -> bool:
        return self.spec.read_only

    @property
    def lazy_checkout(self) -> bool:
        # Keys come from blob ids (`Target.view`) and every read of the checkout is preceded
        # by `Target.ready()`: a base whose entries all hit is never made.
        return True

    @property
    def file_scoped(self) -> bool:
        return self.spec.scope == "file" and self.spec.read_only

    @property
    def name(self) -> str:
        return self.spec.name

    def shares(self, view: TreeView, paths: Sequence[str]) -> list[tuple[str, ...]]:
        """A file-scoped linter's files one by one; a package- or crate-scoped one's units (a
        package is checked whole), and the files no unit takes together."""
        wanted = [p for p in paths if self.spec.wants(p)]
        if self.spec.scope == "file":
            return [(p,) for p in wanted]
        groups = [u.paths for u in self.spec.units(view, wanted) if u.paths]
        placed = {p for g in groups for p in g}
        rest = tuple(p for p in wanted if p not in placed)
        return groups + ([rest] if rest else [])

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        """Configured at the root, or in a folder above one of the changed files it takes (a
        project of a monorepo: the tools find each file's nearest configuration themselves)."""
        # Configurations first: a tool configured nowhere never matches paths (a glob's
        # matcher is an import a review without such tools does not pay).
        if not any(self.configured_in(root / folder) for folder in folders(changed)):
            return False
        wanted = [p for p in changed if self.spec.wants(p)]
        return bool(wanted) and any(self.configured_in(root / folder)
                                    for folder in folders(wanted))

    def configured_in(self, folder: Path) -> bool:
        """Whether `folder` holds a configuration of the tool (the root, or a project's)."""
        if self.spec.detect is not None:
            return self.spec.detect(folder)
        return any((folder / name).is_file() for name in self.spec.config_files)

    def survey(self, root: Path, files: Sequence[str], resolution: Resolution) -> Survey:
        """Its configurations found at the root and in every project folder above a file it
        takes (a monorepo's); enabled by the same decision as `applies`, where `detect` refines
        what the files say."""
        spec = self.spec
        candidates = tuple(dict.fromkeys((*spec.config_files, *spec.markers)))
        wanted = [f for f in files if spec.wants(f)]
        places = folders(wanted)
        found = tuple(n if place == "." else f"{place}/{n}" for place in places
                      for n in candidates if (root / place / n).is_file())
        enabled = any(self.configured_in(root / place) for place in places)
        return Survey("linter", found, candidates, (*sorted(spec.extensions), *spec.globs),
                      len(wanted), resolution.version, spec.install_hint,
                      declined="" if enabled or not found else f"they do not enable {spec.name}")

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        if self.spec.memory_heavy:  # a setting that does not read stops the review here, before
            memory.setting()        # any tool starts: a BotError naming it (exit 2)
        exe = find_executable(self.spec.executables, root)
        if exe is None:
            return Resolution(None, install_hint=self.spec.install_hint,
                              message=f"{self.spec.executables[0]} not found")
        memo = FindingsCache(cache_dir) if cache_dir is not None and self.spec.stable_binary else None
        stamp = binary_stamp(exe, *self.spec.version_args,
                             *sorted(f"{k}={v}" for k, v in self.spec.env.items()))
        known = memo.version(stamp) if memo is not None and stamp else None
        if known:
            return Resolution(exe, known)
        resolution = self._ask_version(exe, root)
        if memo is not None and stamp and resolution.version:
            memo.remember_version(stamp, resolution.version)
        return resolution

    def _ask_version(self, exe: str, root: Path) -> Resolution:
        known = self.spec.read_version(exe) if self.spec.read_version is not None else None
        if known:
            return Resolution(exe, parse_version(known))
        try:
            result = proc.run([exe, *self.spec.version_args], cwd=root, timeout=60,
                              env=self.spec.env)
        except (MissingBinary, Timeout) as exc:
            return Resolution(None, install_hint=self.spec.install_hint, message=str(exc))
        if result.returncode != 0:  # e.g. `cargo clippy` where cargo has no clippy
            return Resolution(None, install_hint=self.spec.install_hint,
                              message=f"{' '.join([Path(exe).name, *self.spec.version_args])}: "
                                      f"{result.err_tail(3) or proc.tail(result.out, 3)}")
        return Resolution(exe, parse_version(result.out + result.err))

    def _invoke(self, spec: LinterSpec, exe: str, unit: Unit, target: Target,
                others: Sequence[Path] = ()) -> proc.Result | Attempt:
        """Run one invocation: its result (the caller closes it), or why it gave none."""
        argv = spec.command(exe, unit, target)
        try:
            with _heavy_slot(spec), proc.tool_slot():
                result = proc.run(argv, cwd=target.root / unit.cwd, timeout=target.timeout,
                                  env=spec.env, spill=True)
        except Timeout as exc:
            return Attempt("timeout", f"timed out after {exc.seconds:g}s on {len(unit.paths)} "
                                      "file(s); process group killed")
        if result.returncode not in spec.ok_exit_codes:
            text = result.err if result.err.strip() else result.out_tail(40)
            result.close()
            return Attempt("failed", f"exit {result.returncode}: "
                                     f"{explain(text, target, others)}")
        if result.truncated:
            result.close()
            return Attempt("failed", f"output too large (stdout over {proc.SPILL_CAP // 2**20} MiB "
                                     f"or stderr over {proc.OUTPUT_CAP // 2**20} MiB): not read")
        return result

    def _read(self, spec: LinterSpec, exe: str, result: proc.Result, unit: Unit, target: Target,
              run: _Run, others: Sequence[Path] = ()) -> list[Finding] | Attempt:
        """The findings of `target` in a result, capped (files over a cap are failed in
        `run`); an Attempt saying why when the output is unreadable."""
        counts: Counter[str] = Counter()
        found: list[Finding] = []
        over_run: set[str] = set()
        try:
            for finding in named_back(spec.parse(result, unit, target), unit):
                counts[finding.path] += 1
                if counts[finding.path] > MAX_PER_FILE:
                    continue
                if run.kept + len(found) >= MAX_PER_RUN:
                    over_run.add(finding.path)
                    continue
                found.append(finding)
        except (GarbageOutput, ValueError, KeyError, TypeError) as exc:
            err = f"\n{explain(result.err, target, others, 5)}" if result.err.strip() else ""
            return Attempt("failed", f"unreadable output ({explain(str(exc), target, others)}): "
                                     f"{explain(result.out_tail(3), target, others)[:300]}{err}")
        over_file = sorted(p for p, n in counts.items() if n > MAX_PER_FILE)
        for path in over_file:
            run.fail([path], f"{path}: {counts[path]} findings, more than the {MAX_PER_FILE} "
                             "per file the bot reads: not checked")
        over_run -= set(over_file)
        if over_run:
            run.fail(sorted(over_run), f"{len(over_run)} file(s) not checked: more than "
                                       f"{MAX_PER_RUN} findings in one run "
                                       f"({', '.join(sorted(over_run)[:5])}"
                                       f"{', ...' if len(over_run) > 5 else ''})")
        dropped = set(over_file) | over_run
        found = [f for f in found if f.path not in dropped]
        run.kept += len(found)
        return found if spec.refine is None else spec.refine(exe, found, unit, target)

    def _execute(self, spec: LinterSpec, exe: str, unit: Unit, target: Target,
                 run: _Run) -> list[Finding] | Attempt:
        result = self._invoke(spec, exe, unit, target)
        if isinstance(result, Attempt):
            return result
        try:
            return self._read(spec, exe, result, unit, target, run)
        finally:
            result.close()

    @staticmethod
    def _record(run: _Run, failures: Sequence[Failure]) -> None:
        for failure in failures:
            message = failure.message
            if failure.isolated and len(failure.paths) == 1:
                message = f"{failure.paths[0]}: the tool failed on this file: {message}"
            elif len(failure.paths) > 1 or not failure.isolated:
                names = ", ".join(failure.paths[:5]) + (", ..." if len(failure.paths) > 5 else "")
                message = f"{len(failure.paths)} file(s) not checked ({names}): {message}"
            run.fail(failure.paths, message, timeout=failure.timeout)

    @staticmethod
    def _lookup_files(spec: LinterSpec, target: Target, paths: list[str],
                      cache: FindingsCache | None, salt: str, run: _Run) -> tuple[dict[str, str], list[str]]:
        """File scope: (each path's key, the paths that missed); hits go into `run`."""
        if cache is None:
            return {}, list(paths)
        keys: dict[str, str] = {}
        todo = []
        # Keys from blob ids, read in one go: at the base they come from git, so a run
        # whose base entries all hit never makes the base checkout.
        view = target.view or DiskView(target.root)
        folders = {f: _config_candidates(spec, f)
                   for f in sorted({str(PurePosixPath(p).parent) for p in paths})}
        blobs = view.blobs(list(dict.fromkeys([*(c for cs in folders.values() for c in cs),
                                               *paths])))
        configs = {f: blobs_hash({c: blobs[c] for c in cs if c in blobs})
                   for f, cs in folders.items()}
        for path in paths:
            if path not in blobs:  # no identity for its contents: linted, never cached
                todo.append(path)
                continue
            config = configs[str(PurePosixPath(path).parent)]
            keys[path] = make_key(salt, target.installed, config, path, blobs[path])
            hit = cache.get(keys[path])
            if hit is None:
                todo.append(path)
            else:
                run.findings.extend(hit)
        return keys, todo

    @staticmethod
    def _store(found: list[Finding], paths: Sequence[str], keys: dict[str, str],
               cache: FindingsCache | None, failed: set[str]) -> None:
        if cache is None:
            return
        by_path: dict[str, list[Finding]] = {p: [] for p in paths if p not in failed}
        for finding in found:
            if finding.path in by_path:
                by_path[finding.path].append(finding)
        for path, items in by_path.items():
            if path in keys:
                cache.put(keys[path], items)

    def _collect_files(self, spec: LinterSpec, exe: str, target: Target, paths: list[str],
                       cache: FindingsCache | None, salt: str, run: _Run) -> None:
        """File scope: each path is its own cache entry; only the misses are linted."""
        keys, todo = self._lookup_files(spec, target, paths, cache, salt, run)
        if todo:
            target.ready()
        for unit in spec.units(DiskView(target.root), todo):
            def attempt(paths: tuple[str, ...], unit: Unit = unit) -> Attempt:
                part = Unit(unit.cwd, paths, unit.dir, unit.key_files)
                found = self._execute(spec, exe, part, target, run)
                if isinstance(found, Attempt):
                    return found
                run.findings.extend(found)
                self._store(found, paths, keys, cache, run.failed)
                return Attempt("ok")

            # A crash on one file must not cost the batch: retried by halves to isolate it.
            self._record(run, isolate(unit.paths, attempt))

    def _collect_units(self, spec: LinterSpec, exe: str, target: Target, paths: list[str],
                       cache: FindingsCache | None, salt: str, run: _Run) -> None:
        """Package/crate/project scope: one cache entry per unit, keyed on its key files;
        the units that miss share invocations as the spec groups them."""
        view = target.view if cache is not None and target.view else DiskView(target.ready())
        units = spec.units(view, paths)
        keys: dict[Unit, str] = {}
        todo: list[Unit] = units
        if cache is not None:
            todo = []
            # The packages of one module share its files: their hash is taken once.
            hashed: dict[tuple[str, ...], str] = {}
            for unit in units:
                config = _config_hash(view, spec, unit.dir)
                files = unit.key_files or unit.paths
                if files not in hashed:
                    blobs = view.blobs(files)
                    hashed[files] = blobs_hash({p: blobs.get(p, "-") for p in files})
                keys[unit] = make_key(salt, target.installed, config, unit.dir, hashed[files])
                hit = cache.get(keys[unit])
                if hit is None:
                    todo.append(unit)
                else:
                    run.findings.extend(hit)
        if todo:
            target.ready()
        for group in spec.group(todo):
            self._run_group(spec, exe, target, group, keys, cache, run)

    def _run_group(self, spec: LinterSpec, exe: str, target: Target, group: Sequence[Unit],
                   keys: dict[Unit, str], cache: FindingsCache | None, run: _Run) -> None:
        """One invocation over the units of `group`, its findings kept and cached per unit."""
        merged = group[0] if len(group) == 1 else Unit(
            group[0].cwd, tuple(p for u in group for p in u.paths), group[0].dir,
            tuple(dict.fromkeys(k for u in group for k in u.key_files)))
        # A package's unit is not split: its files are checked together or not at all.
        failed_before = len(run.failed)
        found = self._execute(spec, exe, merged, target, run)
        if isinstance(found, Attempt):
            self._record(run, [Failure(merged.paths, found.message, found.kind == "timeout")])
            return
        if len(group) > 1 and any(f.rule in spec.alone_after for f in found):
            # The tool said only this about every unit of the run (golangci-lint: the compile
            # errors of one package, nothing of the others): each unit again, alone.
            run.kept -= len(found)
            for unit in group:
                self._run_group(spec, exe, target, [unit], keys, cache, run)
            return
        run.findings.extend(found)
        if cache is None or len(run.failed) != failed_before:
            return  # a file over a cap: the unit's entry would be incomplete
        per_unit: dict[Unit, list[Finding]] = {u: [] for u in group}
        for finding in found:
            home = owner(group, finding.path)
            # A finding outside every unit's folder goes with each unit, so a cache hit
            # returns what the run returned (duplicates are dropped when merging).
            for unit in [home] if home is not None else group:
                per_unit[unit].append(finding)
        for unit, items in per_unit.items():
            cache.put(keys[unit], items)

    def _prepare(self, resolution: Resolution) -> tuple[LinterSpec, str, str]:
        """The spec for the resolved version, the executable, the cache salt."""
        assert resolution.executable is not None
        spec = self.spec
        if spec.for_version is not None:
            spec = spec.for_version(spec, resolution.version)
        salt = make_key(CACHE_SALT, spec.name, resolution.version or "", spec.scope,
                        *sorted(f"{k}={v}" for k, v in spec.env.items()),
                        *([spec.identity] if spec.identity else []))
        return spec, resolution.executable, salt

    @staticmethod
    def _cache(spec: LinterSpec, target: Target, resolution: Resolution,
               salt: str) -> FindingsCache | None:
        # No version, no key: a cache entry must never outlive the tool that wrote it.
        if target.cache_dir is None or not resolution.version:
            return None
        # A tool cheaper than its entries keeps them in one pack per identity (bot.cache).
        pack = make_key(salt, target.installed, "pack") if spec.cache_packed else None
        return FindingsCache(target.cache_dir, pack=pack)

    def _outcome(self, spec: LinterSpec, target: Target, paths: list[str], run: _Run,
                 resolution: Resolution, cache: FindingsCache | None) -> Outcome:
        if cache is not None:
            cache.flush()
        if cache is not None and cache.writes:
            cache.prune()
        wanted = set(paths)
        kept = tuple(dict.fromkeys(
            f for f in run.findings if f.path not in run.failed
            and (f.path in wanted or (spec.beyond_paths and spec.wants(f.path)))))
        extra = frozenset(f.path for f in kept) - wanted
        # A base answered from the cache has no checkout to read; the head's says the same
        # (both revisions run with the head's configuration), and the pipeline joins them.
        unread = (spec.unread(target.root, paths) if spec.unread is not None
                  and target.root.is_dir() else frozenset())
        return Outcome(self.name, run.status, kept, resolution.version, "\n".join(run.messages),
                       frozenset(run.failed), extra, unread_paths=unread)

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        spec, exe, salt = self._prepare(resolution)
        cache = self._cache(spec, target, resolution, salt) if spec.cacheable else None
        paths = [p for p in target.paths if spec.wants(p)]
        run = _Run()
        if spec.scope == "file":
            self._collect_files(spec, exe, target, paths, cache, salt, run)
        else:
            self._collect_units(spec, exe, target, paths, cache, salt, run)
        return self._outcome(spec, target, paths, run, resolution, cache)

    def collect_pair(self, base: Target, head: Target,
                     resolution: Resolution) -> tuple[Outcome, Outcome] | None:
        """Both revisions through shared invocations, for a tool that finds each file's
        configuration from the file itself (ESLint 10): one start-up instead of two, on
        absolute paths from the head's folder. None when the tool cannot, when one
        checkout lies inside the other, or when the shared run mixed the revisions."""
        spec, exe, salt = self._prepare(resolution)
        if not spec.pairable or spec.scope != "file" or _nested(base.root, head.root):
            return None
        if spec.pairs_with is not None and not spec.pairs_with(head.root):
            return None
        sides = []
        for target in (base, head):
            cache = self._cache(spec, target, resolution, salt)
            paths = [p for p in target.paths if spec.wants(p)]
            run = _Run()
            keys, todo = self._lookup_files(spec, target, paths, cache, salt, run)
            sides.append(_Side(target, paths, run, keys, todo, cache))
        if sides[0].todo:
            base.ready()
        owners = {str(side.target.root / p): (side, p) for side in sides for p in side.todo}
        for unit in spec.units(DiskView(head.root), list(owners)):
            def attempt(paths: tuple[str, ...], unit: Unit = unit) -> Attempt:
                return self._pair_attempt(spec, exe, Unit(unit.cwd, paths), sides, owners)

            try:
                failures = isolate(unit.paths, attempt)
            except _Mixed:
                return None  # each revision alone (what earlier units cached stays right)
            for side in sides:
                mine = [Failure(tuple(owners[a][1] for a in f.paths if owners[a][0] is side),
                                f.message, f.timeout, f.isolated) for f in failures]
                self._record(side.run, [f for f in mine if f.paths])
        base_o, head_o = (self._outcome(spec, s.target, s.paths, s.run, resolution, s.cache)
                          for s in sides)
        return base_o, head_o


    def _pair_attempt(self, spec: LinterSpec, exe: str, unit: Unit, sides: Sequence[_Side],
                      owners: dict[str, tuple[_Side, str]]) -> Attempt:
        """One shared invocation read for each side; it counts only when every side reads."""
        head = sides[-1].target
        roots = [s.target.root for s in sides]
        result = self._invoke(spec, exe, unit, head, roots)
        if isinstance(result, Attempt):
            return result
        try:
            reads = []
            for side in sides:
                mine = tuple(owners[a][1] for a in unit.paths if owners[a][0] is side)
                if not mine:
                    continue
                found = self._read(spec, exe, result, Unit(unit.cwd, mine), side.target,
                                   side.run, roots)
                if isinstance(found, Attempt):
                    return found
                reads.append((side, mine, found))
        finally:
            result.close()
        if any(_names_another(f, side.target.root, roots) for side, _, found in reads
               for f in found):
            raise _Mixed
        for side, mine, found in reads:
            side.run.findings.extend(found)
            self._store(found, mine, side.keys, side.cache, side.run.failed)
        return Attempt("ok")


# The tools that can take hundreds of MB run together only where the job's memory has room
# for them (bot.linters.memory). Taken before a core (proc.tool_slot), always in that order.
_HEAVY = HeavyGate()


@contextlib.contextmanager
def _heavy_slot(spec: LinterSpec) -> Iterator[None]:
    if not spec.memory_heavy:
        yield
        return
    with _HEAVY.hold(spec.memory_peak):
        yield


def folders(paths: Sequence[str]) -> list[str]:
    """The root, then every folder holding one of `paths` or above one, each once."""
    out = {".": None}
    for path in paths:
        parts = PurePosixPath(path).parts[:-1]
        for i in range(1, len(parts) + 1):
            out.setdefault("/".join(parts[:i]), None)
    return list(out)


class _Mixed(Exception):
    """A shared run was misled by the other revision: its results are not either's."""


def _names_another(finding: Finding, own: Path, roots: Sequence[Path]) -> bool:
    """Whether a finding's message names another revision's checkout: the tool mixed the
    revisions (typescript-eslint 8 takes every loaded config's folder as a candidate root and
    fails each file's parse when there are two)."""
    return any(str(root) in finding.message or str(root.resolve()) in finding.message
               for root in roots if root != own)


def _nested(a: Path, b: Path) -> bool:
    a, b = a.resolve(), b.resolve()
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


@dataclass
class _Side:
    """One revision's share of a paired collect."""

    target: Target
    paths: list[str]
    run: _Run
    keys: dict[str, str]
    todo: list[str]
    cache: FindingsCache | None
