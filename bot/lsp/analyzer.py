"""A language server as an `Analyzer`: applies, resolves, collects one revision.

Lifetime: a server starts inside `collect` at the first changed file that needs it and is
stopped (process group killed if it hangs) before `collect` returns — one session per
revision. Both revisions are checked by separate sessions on their own checkouts; see
`README` of this package (`bot/lsp/__init__.py`) for why no server is shared across them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot import proc
from bot.analyzer import Analyzer, Outcome, Resolution, Target
from bot.lsp import servers
from bot.lsp.diagnostics import findings_for, setup_notes
from bot.lsp.servers import ServerSpec
from bot.model import Finding, ToolStatus


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
    spec: ServerSpec
    # Whether this repository chose this server (pyright vs basedpyright); None = always.
    chosen: Callable[[Path], bool] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

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

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        # Imported here: the LSP client pulls in lsprotocol (~0.3 s) and the importer search
        # tree-sitter, which a review with no language server to run should not pay.
        from bot.lsp import importers, session

        if resolution.executable is None:
            return Outcome(self.name, "missing", message=resolution.message)
        repo = target.repo or target.root
        spec = servers.variant(self.spec, repo)
        deadline = time.monotonic() + target.timeout
        # Changed paths at either revision: importers of a module deleted at the head must be
        # checked at the head too.
        changed = sorted({*target.paths, *target.changed})
        findings: list[Finding] = []
        failed: set[str] = set()
        extra: set[str] = set()
        version: str | None = None
        status: ToolStatus = "ok"
        messages: list[str] = []
        for project, rels in group_by_project(target.root, target.paths, spec).items():
            prefix = _prefix(target.root, project)
            importing = [prefix + p for p in importers.find_importers(
                spec.import_language, project,
                [p[len(prefix):] for p in changed if p.startswith(prefix)])]
            importing = [p for p in importing if p not in rels]
            launch = servers.launch(spec, repo, resolution.executable, project)
            try:
                result = session.run(launch, target.root, project, rels + importing, deadline)
            except session.SessionError as exc:
                status = exc.status if status == "ok" else status
                messages.append(exc.message)
                failed.update(rels + importing)
                continue
            version = version or result.version
            failed.update(result.failed)
            messages += [f"{p}: {why}" for p, why in sorted(result.failed.items())]
            for rel, items in result.diagnostics.items():
                findings += findings_for(spec, items, rel, result.texts[rel])
                notes = setup_notes(spec, items)
                if notes:
                    failed.add(rel)
                    messages.append(f"{rel}: not analysed: {notes[0]}")
            extra.update(p for p in result.diagnostics if p not in target.paths)
            extra.update(p for p in importing if p in result.failed)
        return Outcome(self.name, status, tuple(sorted(findings, key=Finding.sort_key)),
                       version=version, message="\n".join(messages),
                       failed_paths=frozenset(failed), extra_paths=frozenset(extra))


def _probe(spec: ServerSpec, executable: str) -> Resolution:
    """Run the binary once: a tool that is found but cannot run is not offered."""
    try:
        result = proc.run([executable, *(spec.probe or ())], timeout=30)
    except proc.ProcError as exc:
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
