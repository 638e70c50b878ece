"""A language server as an `Analyzer`: applies, resolves, collects one revision or both.

Lifetime: a server starts inside `collect` (or `collect_pair`) at the first changed file that
needs it and is stopped (process group killed if it hangs) before it returns. When one warm
server may check both revisions, and when each gets its own: `bot/lsp/__init__.py`.
"""

from __future__ import annotations

import posixpath
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from bot import proc, toolpath
from bot.analyzer import Analyzer, Outcome, Resolution, Survey, Target
from bot.cache import FindingsCache
from bot.errors import ProcError, SessionError
from bot.lsp import servers
from bot.lsp.servers import ServerSpec
from bot.model import Finding, ToolStatus

if TYPE_CHECKING:
    from bot.lsp.session import SessionResult


def project_root(checkout: Path, rel: str, spec: ServerSpec) -> Path | None:
    """The nearest directory (inside the checkout) above `rel` holding a root marker."""
    directory = (checkout / rel).parent
    checkout = checkout.resolve()
    while True:
        if any(marker.found(directory) for marker in spec.markers):
            return directory
        if directory.resolve() == checkout or directory == directory.parent:
            return None
        directory = directory.parent


def _markers(spec: ServerSpec, root: Path, files: Sequence[str]) -> tuple[str, ...]:
    """The root markers above tracked files of the server's languages, repo-relative."""
    found: dict[str, None] = {}
    # One probe per folder, as `LspAnalyzer.applies` does.
    probes = {str(PurePosixPath(f).parent): f for f in files if spec.language_id(f) is not None}
    for probe in probes.values():
        project = project_root(root, probe, spec)
        if project is None:
            continue
        prefix = project.resolve().relative_to(root.resolve()).as_posix()
        for marker in spec.markers:
            if marker.found(project):
                found[marker.name if prefix == "." else f"{prefix}/{marker.name}"] = None
    return tuple(sorted(found))


def _installed_version(spec: ServerSpec, exe: str, root: Path) -> str | None:
    """The version without starting the server: read from what installed it."""
    if spec is servers.GOPLS:
        return toolpath.go_module_version(exe, "golang.org/x/tools/gopls")
    if spec is servers.TYPESCRIPT:
        return toolpath.npm_version(exe, "typescript-language-server")
    if spec is servers.TYPESCRIPT_NATIVE:
        own = servers.typescript_version(root)
        return own[1] if own else None
    if Path(exe).parent == Path(sys.prefix) / "bin":  # a Python package of the bot's own environment
        # Only the doctor asks: a review does not pay for the package metadata's imports.
        import importlib.metadata
        try:
            return importlib.metadata.version(spec.name)
        except importlib.metadata.PackageNotFoundError:
            return None
    return None


def group_by_project(checkout: Path, paths: Sequence[str], spec: ServerSpec
                     ) -> dict[Path, list[str]]:
    groups: dict[Path, list[str]] = {}
    for rel in sorted(paths):
        if spec.language_id(rel) is None or not (checkout / rel).is_file():
            continue
        root = project_root(checkout, rel, spec)
        if root is not None:
            groups.setdefault(root, []).append(rel)
    return groups


@dataclass(frozen=True)
class LspAnalyzer(Analyzer):
    """A language server as an `Analyzer`: its diagnostics at both revisions."""

    spec: ServerSpec
    # Whether this repository chose this server (pyright vs basedpyright); None = always.
    chosen: Callable[[Path], bool] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def defers_to(self) -> tuple[str, ...]:
        return self.spec.covered_by

    @property
    def config_files(self) -> tuple[str, ...]:
        """Root-level files the base checkout takes from the head (same configuration)."""
        return tuple(m.name for m in self.spec.markers if m.name not in ("go.mod", "go.work",
                                                                          "Cargo.toml"))

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        """Root marker above a changed file of its language AND a binary that resolves: a
        server offered but always failing is worse than one absent."""
        if self.chosen is not None and not self.chosen(root):
            return False
        # One probe per directory: a large change has many files in few folders.
        probes = {str(Path(p).parent): p for p in changed if self.spec.language_id(p) is not None}
        marked = any(project_root(root, p, self.spec) is not None for p in probes.values())
        return marked and self.resolve(root).executable is not None

    def survey(self, root: Path, files: Sequence[str], resolution: Resolution) -> Survey:
        """The root markers above its languages' files; declined where the repository chose
        the other Python checker; the version read from what installed the server when
        `resolve` did not ask it (a server is not started to be surveyed)."""
        spec = servers.variant(self.spec, root)
        declined = ""
        if self.chosen is not None and not self.chosen(root):
            declined = f"the repository's Python checker is {servers.python_checker(root).name} " \
                       "(named in its configuration or dependencies, basedpyright by default)"
        exe = resolution.executable
        return Survey(
            "language server", _markers(spec, root, files), tuple(m.name for m in spec.markers),
            tuple(sorted(spec.languages)),
            sum(1 for f in files if PurePosixPath(f).suffix.lower() in spec.languages),
            resolution.version or (_installed_version(spec, exe, root) if exe else None),
            spec.install_hint, declined)

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        # The probe also proves the binary runs (rustup installs stubs): never remembered.
        spec = servers.variant(self.spec, root)
        executable = servers.find_binary(spec, root)
        if executable is None:
            return Resolution(None, install_hint=spec.install_hint,
                              message=f"{spec.executables[0]} not found")
        if spec.probe is not None:
            return _probe(spec, executable)
        return Resolution(executable, install_hint=spec.install_hint)

    def collect(self, target: Target, resolution: Resolution,
                stop: threading.Event | None = None) -> Outcome:
        """`stop`, once set, ends the sessions at their next wait (their result unused)."""
        # Imported here: the LSP client pulls in lsprotocol (~0.3 s) and the importer search
        # tree-sitter, which a review with no language server to run should not pay.
        from bot.lsp import session
        from bot.lsp.budget import Budget

        if resolution.executable is None:
            return Outcome(self.name, "missing", message=resolution.message)
        repo = target.repo or target.root
        spec = servers.variant(self.spec, repo)
        budget = Budget.of(target.timeout, spec.ready_timeout, stop=stop)
        out = _Collected(self.name, spec, target)
        for project, rels, importing, _ in _plan(spec, target).sessions:
            if stop is not None and stop.is_set():  # no longer wanted: start no more servers
                out.fail(SessionError("timeout", STOPPED), rels + importing)
                continue
            launch = servers.launch(spec, repo, resolution.executable, project)
            try:
                out.take(session.run(launch, target.root, project, rels + importing, budget),
                         importing)
            except SessionError as exc:
                out.fail(exc, rels + importing)
        return out.outcome()

    def collect_pair(self, base: Target, head: Target,
                     resolution: Resolution) -> tuple[Outcome, Outcome] | None:
        """One warm server for both revisions (session.run_pair) where the revisions differ in
        nothing but the text of files the server opens: every changed path is a source file of
        its language and exists at both (no added, deleted or renamed module, no changed
        manifest or config, which would change the program beyond open documents). Importers
        are found at the head; they are unchanged files, the same at the base. Else None: one
        session per revision, concurrently."""
        from bot.lsp import memo, session
        from bot.lsp.budget import Budget

        repo = head.repo or head.root
        spec = servers.variant(self.spec, repo)
        exe = resolution.executable
        if exe is None or not _pairable(spec, base, head):
            return self._head_first(base, head, resolution) if not head.fixed else None
        budget = Budget.of(head.timeout, spec.ready_timeout)
        outs = (_Collected(self.name, spec, base), _Collected(self.name, spec, head))
        plan = _plan(spec, head, base.root)
        cache = FindingsCache(head.cache_dir) if head.cache_dir is not None else None
        for out in outs:
            out.note = plan.note
        # A finding moved from one project to another is matched across them: the base is
        # left out only where one server sees the whole change.
        skippable = not head.fixed and len(plan.sessions) == 1

        def base_wanted(result: SessionResult) -> bool:
            return not skippable or bool(result.failed) or _has_findings(spec, result)

        for project, rels, importing, hidden in plan.sessions:
            launch = servers.launch(spec, repo, exe, project)
            files = rels + importing
            keys = [memo.session_key(launch, t.rev, _prefix(head.root, project), files, hidden,
                                      t.installed)
                    if cache is not None else None for t in (base, head)]
            known = cache.get(keys[0]) if cache is not None and keys[0] is not None else None
            try:
                if known is not None:  # a new push: the base is what the last review saw
                    outs[0].take_known(known, files)
                    taken = [(outs[1], keys[1],
                              session.run(launch, head.root, project, files, budget))]
                else:
                    texts = {rel: session.read_text(base.root / rel) for rel in rels + hidden}
                    base_r, head_r = session.run_pair(launch, head.root, project, files, texts,
                                                      budget, hidden, base_wanted)
                    taken = [(outs[1], keys[1], head_r)]
                    if base_r is not None:
                        taken.append((outs[0], keys[0], base_r))
                    else:
                        outs[1].note = _join(outs[1].note, BASE_LEFT_OUT)
            except SessionError as exc:
                for out in outs if known is None else outs[1:]:
                    out.fail(exc, files)
                continue
            _take(taken, importing, cache)
        if cache is not None and cache.writes:
            cache.prune()
        return outs[0].outcome(), outs[1].outcome()

    def _head_first(self, base: Target, head: Target, resolution: Resolution
                    ) -> tuple[Outcome, Outcome]:
        """One session per revision, at once; the base's is stopped when the head has no
        finding to classify (a base finding can only make a head finding preexisting): its
        server's time is given back, and the review waits no longer than for the head."""
        stop = threading.Event()
        with ThreadPoolExecutor(max_workers=1) as pool:
            base_f = pool.submit(self._guarded, base, resolution, stop)
            try:
                head_o = self._guarded(head, resolution)
            except BaseException:  # interrupted: the base's server must not outlive the review
                stop.set()
                raise
            if head_o.status == "ok" and not head_o.findings and not head_o.failed_paths:
                stop.set()
                base_f.result()  # its server stopped and gone, whatever it had found
                return (Outcome(self.name, "ok", version=head_o.version),
                        replace(head_o, note=_join(head_o.note, BASE_LEFT_OUT)))
            return base_f.result(), head_o


    def _guarded(self, target: Target, resolution: Resolution,
                 stop: threading.Event | None = None) -> Outcome:
        """`collect`, with a bug in it a failed outcome rather than an exception: one revision's
        must not lose the other's result (as bot.run.pipeline guards each tool)."""
        try:
            return self.collect(target, resolution, stop)
        except Exception as exc:
            return Outcome(self.name, "failed", message=f"{type(exc).__name__}: {exc}",
                           failed_paths=frozenset(target.paths))


# A session not started because its result was no longer wanted (its outcome is not used).
STOPPED = "not started: the result was no longer wanted"

# Said on the tool's row when the head had nothing to classify (see README, "fixed").
BASE_LEFT_OUT = ("the base was not checked: no finding at the head to classify "
                 "(what the change fixed there is not listed)")


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _has_findings(spec: ServerSpec, result: SessionResult) -> bool:
    from bot.lsp.diagnostics import findings_for, setup_notes

    return any(findings_for(spec, items, rel, result.texts[rel]) or setup_notes(spec, items)
               for rel, items in result.diagnostics.items())


# Files no type checker here reads: documentation, and the sources of other languages.
_DOCS = frozenset({".md", ".markdown", ".rst", ".txt", ".adoc"})
_SOURCES = frozenset({".py", ".pyi", ".go", ".rs", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx",
                      ".mjs", ".cjs", ".c", ".h", ".cc", ".cpp", ".java", ".kt", ".rb", ".sh"})



def _pairable(spec: servers.ServerSpec, base: Target, head: Target) -> bool:
    """Whether one warm server can diagnose both revisions: every changed path is a source
    file of the server's language present at both, or one the server never reads, and the
    files it covers are the same at both (not so where a linter failed at one revision only)."""
    sources = {p for p in head.changed if spec.language_id(p) is not None}
    return (spec.warm_pair and bool(sources)
            and sources <= set(base.paths) and sources <= set(head.paths)
            and all(p in sources or _never_read(spec, p) for p in head.changed)
            and _coverage(spec, base) == _coverage(spec, head))


def _take(taken: Sequence[tuple[_Collected, str | None, SessionResult]],
          importing: Sequence[str], cache: FindingsCache | None) -> None:
    """Each revision's session result into its outcome; a clean one into the cache."""
    for out, key, result in taken:
        clean = out.take(result, importing)
        if cache is not None and key is not None and clean is not None:
            cache.put(key, clean)

def _never_read(spec: ServerSpec, path: str) -> bool:
    suffix = Path(path).suffix.lower()
    return suffix in _DOCS or (suffix in _SOURCES and suffix not in spec.languages)


def _coverage(spec: ServerSpec, target: Target) -> frozenset[str]:
    """What the linters this server defers to checked of the changed files at `target`."""
    done: set[str] = set()
    for tool in spec.covered_by:
        done |= target.checked.get(tool, frozenset())
    return frozenset(p for p in done & set(target.paths) if spec.language_id(p) is not None)


@dataclass(frozen=True)
class _Plan:
    """The sessions a collect starts, and what it leaves out on purpose."""

    # (project root, changed files, importers, changed files left out) per server to start
    sessions: list[tuple[Path, list[str], list[str], list[str]]]
    note: str = ""  # what was left out on purpose, for the tool's row


def _plan(spec: ServerSpec, target: Target, base_root: Path | None = None) -> _Plan:
    """The servers to start, after what a linter of the review already type-checked
    (bot.lsp.scope) and, given the base's checkout, without the importers of packages whose
    change other packages cannot see (bot.lsp.surface)."""
    from bot.lsp import importers, scope

    # Changed paths at either revision: importers of a module deleted at the head must be
    # checked at the head too.
    changed = sorted({*target.paths, *target.changed})
    covered: frozenset[str] = frozenset()
    crates: list[str] = []
    crate_of: dict[str, str | None] | None = None
    if any(tool in target.checked for tool in spec.covered_by):
        if spec.coverage_unit == "crate":
            crates = scope.crates(target.root)
            crate_of = scope.crate_of(changed, crates)
        covered = scope.covered_units(spec, target.paths, target.checked, crate_of)
    plans = []
    unseen: list[str] = []
    for project, rels in group_by_project(target.root, target.paths, spec).items():
        prefix = _prefix(target.root, project)
        # cargo check covers the whole workspace whatever is open: nothing is left only when
        # the linter checked every crate there is (no dependents beyond).
        if (spec.coverage_unit == "crate" and covered and set(crates) <= covered
                and not scope.beyond(spec, rels, covered, crate_of)):
            continue
        local = [p for p in changed if p.startswith(prefix)]
        siblings: list[str] = []
        if spec.api_surface and base_root is not None:
            # Without a linter's coverage every changed package is looked at, and the other
            # files of a quiet one stay (a name it adds may clash with theirs, which only
            # the linter's type check would have seen).
            packages = covered or frozenset(posixpath.dirname(p) for p in local)
            quiet = _unseen(project, prefix, base_root, target.root, local, packages)
            unseen += quiet
            local = [p for p in local if posixpath.dirname(p) not in quiet]
            if not covered:
                siblings = _siblings(target.root, quiet, spec)
        importing = [prefix + p for p in importers.find_importers(
            spec.import_language, project, [p[len(prefix):] for p in local])]
        importing = sorted({*importing, *siblings} - set(rels))
        left_out: list[str] = []
        if spec.coverage_unit == "folder" and covered:
            kept = scope.beyond(spec, rels, covered)
            left_out = [p for p in rels if p not in kept]
            rels, importing = kept, scope.beyond(spec, importing, covered)
            if not rels and not importing:
                continue
        plans.append((project, rels, importing, left_out))
    note = ""
    if unseen:
        folders = ", ".join(f or "." for f in sorted(set(unseen)))
        note = (f"importers of {folders} not checked: the change there touches only function "
                "bodies (or adds names), which code in other packages cannot see")
    return _Plan(plans, note)


def _unseen(project: Path, prefix: str, base_root: Path, head_root: Path,
            changed: Sequence[str], covered: frozenset[str]) -> list[str]:
    """The package folders (repo-relative) among `changed`, of those in `covered`, whose
    change their importers cannot see."""
    from bot.lsp import importers, surface

    sources: dict[str, list[str]] = {}
    for path in changed:
        folder = posixpath.dirname(path)
        if folder in covered and path.endswith(".go"):
            paths = sources.setdefault(folder, [])
            if not path.endswith("_test.go"):  # never part of what importers build against
                paths.append(path)
    # Every changed path is at both revisions here (collect_pair): one that cannot be read
    # stands for a change.
    sides = {folder: [[surface.parse(data) if (data := _bytes(root / p)) is not None else None
                       for p in paths] for root in (base_root, head_root)]
             for folder, paths in sources.items()}
    adding = [f for f, (old, new) in sides.items() if surface.added(old, new)]
    dotted = {prefix + f for f in importers.go_dot_imported(
        project, [f[len(prefix):] for f in adding])} if adding else set()
    return sorted(f for f, (old, new) in sides.items()
                  if surface.package_change(old, new, f in dotted) is None)


def _siblings(root: Path, folders: Sequence[str], spec: ServerSpec) -> list[str]:
    """The source files of the package `folders` (repo-relative), which share their scope."""
    found = []
    for folder in folders:
        try:
            entries = sorted((root / folder).iterdir())
        except OSError:
            continue
        found += [posixpath.join(folder, e.name) for e in entries
                  if e.is_file() and spec.language_id(e.name) is not None]
    return found


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


class _Collected:
    """One revision's outcome, gathered over its sessions."""

    def __init__(self, name: str, spec: ServerSpec, target: Target) -> None:
        self.name, self.spec, self.target = name, spec, target
        self.findings: list[Finding] = []
        self.failed: set[str] = set()
        self.extra: set[str] = set()
        self.version: str | None = None
        self.status: ToolStatus = "ok"
        self.messages: list[str] = []
        self.note = ""

    def fail(self, exc: SessionError, files: Sequence[str]) -> None:
        self.status = exc.status if self.status == "ok" else self.status
        self.messages.append(exc.message)
        self.failed.update(files)

    def take(self, result: SessionResult, importing: Sequence[str]) -> list[Finding] | None:
        """Adds one session's result; returns its findings when it is clean (every file
        analysed), what may be kept for a later review (bot.lsp.memo)."""
        from bot.lsp.diagnostics import findings_for, setup_notes

        self.version = self.version or result.version
        self.failed.update(result.failed)
        self.messages += [f"{p}: {why}" for p, why in sorted(result.failed.items())]
        found: list[Finding] = []
        clean = not result.failed
        for rel, items in result.diagnostics.items():
            found += findings_for(self.spec, items, rel, result.texts[rel])
            notes = setup_notes(self.spec, items)
            if notes:
                clean = False
                self.failed.add(rel)
                self.messages.append(f"{rel}: not analysed: {notes[0]}")
        self.findings += found
        self.extra.update(p for p in result.diagnostics if p not in self.target.paths)
        self.extra.update(p for p in importing if p in result.failed)
        return found if clean else None

    def take_known(self, findings: Sequence[Finding], files: Sequence[str]) -> None:
        """A clean result kept by an earlier review of the same revision and files."""
        self.findings += findings
        self.extra.update(p for p in files if p not in self.target.paths)

    def outcome(self) -> Outcome:
        return Outcome(self.name, self.status, tuple(sorted(self.findings, key=Finding.sort_key)),
                       version=self.version, message="\n".join(self.messages),
                       failed_paths=frozenset(self.failed), extra_paths=frozenset(self.extra),
                       note=self.note)


def _probe(spec: ServerSpec, executable: str) -> Resolution:
    """Run the binary once: a tool that is found but cannot run is not offered."""
    try:
        result = proc.run([executable, *(spec.probe or ())], timeout=30)
    except ProcError as exc:
        return Resolution(None, install_hint=spec.install_hint, message=str(exc))
    if result.returncode != 0:
        return Resolution(None, install_hint=spec.install_hint,
                          message=f"{executable} does not run: {result.err_tail(3)}")
    words = result.out.split()
    return Resolution(executable, version=words[1] if len(words) > 1 else None,
                      install_hint=spec.install_hint)


def _prefix(checkout: Path, project: Path) -> str:
    rel = project.resolve().relative_to(checkout.resolve()).as_posix()
    return "" if rel == "." else rel + "/"
