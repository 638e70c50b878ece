"""Language server specs as data: how to start each server, where it applies, what it needs.

The completion signal is named per spec: the protocol's publishDiagnostics has no "done"
marker, so each server gets the signal that actually means done for it — never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bot import toolpath
from bot.lsp import goenv

# pull: `textDocument/diagnostic` answers with the final list (pyright, tsc --lsp).
# diagnose_files: gopls's `gopls.diagnose_files` returns after publishing.
# tsserver: `typescript.tsserverRequest` semanticDiagnosticsSync/syntacticDiagnosticsSync.
# flycheck: rust-analyzer quiescent, then the end of the flycheck (cargo check) progress.
Completion = Literal["pull", "diagnose_files", "tsserver", "flycheck"]


@dataclass(frozen=True)
class Marker:
    """A root marker: a file name, optionally with content that must be present."""

    name: str
    pattern: str | None = None  # regex searched in the file (MULTILINE)

    def found(self, directory: Path) -> bool:
        path = directory / self.name
        if not path.is_file():
            return False
        if self.pattern is None:
            return True
        try:
            return re.search(self.pattern, path.read_text(errors="replace"), re.M) is not None
        except OSError:
            return False


@dataclass(frozen=True)
class ServerSpec:
    """What the client needs to know of one language server: how to find, start and ask it."""

    name: str  # the tool name findings carry
    executables: tuple[str, ...]
    args: tuple[str, ...]
    languages: Mapping[str, str]  # file suffix -> LSP languageId
    markers: tuple[Marker, ...]
    completion: Completion
    pull: bool  # declare pull diagnostics (some servers then report differently)
    install_hint: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    init_options: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    rule_prefix: str = ""  # "TS" turns code 2345 into TS2345
    # Codes that name no check (gopls gives every analyzer's diagnostics "default"): the
    # diagnostic's source (the analyzer) is the rule instead.
    vague_codes: tuple[str, ...] = ()
    # Synthetic diagnostics about the setup, not the code (gopls orphaned files, ...).
    ignore: tuple[str, ...] = ()
    # Only diagnostics from these sources are findings (empty: every source).
    sources: tuple[str, ...] = ()
    # What says the server could not load the project at all (a diagnostic's message, or
    # rust-analyzer's status message): the run failed, its diagnostics are not findings.
    load_errors: tuple[str, ...] = ()
    # Files its build tool creates when missing, in the project or a folder above it (cargo
    # writes a workspace's Cargo.lock, and has no stable flag against it): removed after the
    # session when it created them, so the checkout is left as it was found.
    created_files: tuple[str, ...] = ()
    # Its cargo builds into a folder of the session (`with_scratch`), not `target/` in the
    # checkout.
    scratch_target: bool = False
    # Where the repository says which checker it uses, and the word that claims it.
    claim_files: tuple[str, ...] = ()
    claim: str | None = None
    import_language: str = ""  # importer scan language (bot.lsp.importers)
    # Arguments that make the binary print its version: run at resolve time for binaries that
    # may be a stub (rustup's proxy exists even when the component is not installed).
    probe: tuple[str, ...] | None = None
    start_timeout: float = 60.0
    # How long past the review's timeout the server may go on while it shows progress (a cold
    # start: its first index, cargo metadata, dependencies built); each sign of progress starts
    # the timeout again, up to this much more (bot.lsp.budget).
    ready_timeout: float = 120.0
    # Linters whose run over a changed package reports what this server would there (their
    # type check: golangci-lint's typecheck, clippy's rustc errors). Where one of them checked
    # every changed file of a package, the server looks only beyond it (bot.lsp.scope).
    covered_by: tuple[str, ...] = ()
    # What a unit of that coverage is: a Go package (the folder) or a Rust crate.
    coverage_unit: Literal["folder", "crate"] = "folder"
    # The language whose declarations tell whether a covered package's importers can see its
    # change at all (bot.lsp.surface: Go, which infers no result type from a body); "" = they
    # always may.
    api_surface: Literal["", "go"] = ""
    # Its diagnostics follow open documents' text (didChange), so one server may check the
    # base and then the head (LspAnalyzer.collect_pair); tested per server.
    warm_pair: bool = False

    def language_id(self, path: str) -> str | None:
        return self.languages.get(Path(path).suffix.lower())


_PY_SETTINGS = {"diagnosticMode": "openFilesOnly", "autoSearchPaths": True}
_PY_CLAIM_FILES = ("pyproject.toml", "setup.cfg", "requirements.txt", "requirements-dev.txt",
                   "requirements_dev.txt", "dev-requirements.txt", ".pre-commit-config.yaml",
                   "package.json")
_PY_MARKERS = (Marker("pyrightconfig.json"),
               Marker("pyproject.toml", r"^\[tool\.(based)?pyright(\.|\])"))

BASEDPYRIGHT = ServerSpec(
    name="basedpyright",
    executables=("basedpyright-langserver",),
    args=("--stdio",),
    languages={".py": "python", ".pyi": "python"},
    markers=_PY_MARKERS,
    completion="pull",
    pull=True,
    install_hint="pip install basedpyright",
    # baselineMode discard: never rewrite the repository's .basedpyright/baseline.json.
    settings={"basedpyright": {"analysis": {**_PY_SETTINGS, "baselineMode": "discard"}},
              "python": {"analysis": _PY_SETTINGS}},
    claim_files=_PY_CLAIM_FILES,
    claim=r"basedpyright",
    import_language="python",
    warm_pair=True,
)

PYRIGHT = ServerSpec(
    name="pyright",
    executables=("pyright-langserver",),
    args=("--stdio",),
    languages=BASEDPYRIGHT.languages,
    markers=_PY_MARKERS,
    completion="pull",
    pull=True,
    install_hint="pip install pyright",
    settings={"python": {"analysis": _PY_SETTINGS}},
    env={"PYRIGHT_PYTHON_IGNORE_WARNINGS": "1"},  # skips the wrapper's PyPI version check
    claim_files=_PY_CLAIM_FILES,
    claim=r"(?<![\w-])pyright(?![\w-])",
    import_language="python",
    warm_pair=True,
)

_TS_LANGUAGES = {".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript",
                 ".cts": "typescript", ".js": "javascript", ".jsx": "javascriptreact",
                 ".mjs": "javascript", ".cjs": "javascript"}
_TS_MARKERS = (Marker("tsconfig.json"), Marker("jsconfig.json"))

TYPESCRIPT = ServerSpec(
    name="typescript",
    executables=("typescript-language-server",),
    args=("--stdio",),
    languages=_TS_LANGUAGES,
    markers=_TS_MARKERS,
    completion="tsserver",
    pull=False,
    install_hint="scripts/install-tools.sh (npm: typescript-language-server, typescript)",
    init_options={"disableAutomaticTypingAcquisition": True, "maxTsServerMemory": 4096,
                  "tsserver": {"logVerbosity": "off", "useSyntaxServer": "never"}},
    rule_prefix="TS",
    import_language="typescript",
    warm_pair=True,
)

# TypeScript 7 (the native compiler) has no tsserver.js; it is its own server and answers pulls.
TYPESCRIPT_NATIVE = ServerSpec(
    name="typescript",
    executables=("tsc",),
    args=("--lsp", "--stdio"),
    languages=_TS_LANGUAGES,
    markers=_TS_MARKERS,
    completion="pull",
    pull=True,
    install_hint="npm install --save-dev typescript@7",
    rule_prefix="TS",
    import_language="typescript",
)

GOPLS = ServerSpec(
    name="gopls",
    executables=("gopls",),
    args=(),
    languages={".go": "go"},
    markers=(Marker("go.work"), Marker("go.mod")),
    completion="diagnose_files",
    pull=False,
    install_hint="scripts/install-tools.sh (go install golang.org/x/tools/gopls@v0.23.0)",
    # diagnosticsDelay 0s: one full pass instead of the two-phase partial-first publish.
    # The read-only Go environment (bot.lsp.goenv) is added per project by `launch`, both to
    # the process and to gopls' own `env` setting, which its go commands use.
    settings={"gopls": {"diagnosticsDelay": "0s"}},
    init_options={"diagnosticsDelay": "0s"},
    vague_codes=("default",),
    # The go command could not list the packages (a toolchain too old, a broken go.mod).
    load_errors=(r"packages\.Load error",),
    ignore=(r"^No active builds contain", r"which is not included in your workspace",
            r"^This file is within module .*, which is not included"),
    import_language="go",
    ready_timeout=180.0,
    covered_by=("golangci-lint",),
    api_surface="go",
    warm_pair=True,
)

# No automatic check: the session requests its own (see session._flycheck). No native
# diagnostics: rust-analyzer's own analysis reports what cargo does not ("Variable `None`
# should have snake_case name", `unresolved-extern-crate` on a crate that builds) whenever it
# resolves less than the compiler (no standard library sources, macros it cannot expand);
# only the check's (cargo's) diagnostics are findings.
# The build output goes to the session's own folder (`with_scratch`), never the checkout.
_RA_CONFIG = {"checkOnSave": False, "check": {"command": "check", "allTargets": True},
              "cachePriming": {"enable": False}, "cargo": {"targetDir": True},
              "procMacro": {"enable": True}, "diagnostics": {"enable": False}}

RUST_ANALYZER = ServerSpec(
    name="rust-analyzer",
    executables=("rust-analyzer",),
    args=(),
    languages={".rs": "rust"},
    markers=(Marker("Cargo.toml"),),
    completion="flycheck",
    # Without a pull capability rust-analyzer pushes its native diagnostics too.
    pull=False,
    install_hint="rustup component add rust-analyzer",
    settings={"rust-analyzer": _RA_CONFIG},
    init_options=_RA_CONFIG,
    env={"CARGO_TERM_COLOR": "never"},
    sources=("rustc", "clippy"),
    created_files=("Cargo.lock",),
    scratch_target=True,
    # Its status when cargo could not load the workspace, or the check could not run.
    load_errors=(r"Failed to (load|discover) workspace", r"Failed to read Cargo metadata",
                 r"Failed to run build scripts", r"cargo check failed to start"),
    import_language="rust",
    probe=("--version",),
    ready_timeout=600.0,
    covered_by=("clippy",),
    coverage_unit="crate",
)


@dataclass(frozen=True)
class Launch:
    """The concrete way to run a spec in one repository."""

    spec: ServerSpec
    argv: tuple[str, ...]
    init_options: Mapping[str, Any]
    settings: Mapping[str, Any]
    env: Mapping[str, str] = field(default_factory=dict)


def claims(spec: ServerSpec, root: Path) -> bool:
    """Does the repository name this checker in its config or dependency files?"""
    if spec.claim is None:
        return False
    for name in spec.claim_files:
        path = root / name
        if path.is_file():
            try:
                if re.search(spec.claim, path.read_text(errors="replace")):
                    return True
            except OSError:
                continue
    return False


def python_checker(root: Path) -> ServerSpec:
    """basedpyright unless the repository names pyright and not basedpyright."""
    if not claims(BASEDPYRIGHT, root) and claims(PYRIGHT, root):
        return PYRIGHT
    return BASEDPYRIGHT


def typescript_version(root: Path) -> tuple[int, str] | None:
    """(major, version) of the repository's own TypeScript, if installed."""
    manifest = root / "node_modules" / "typescript" / "package.json"
    try:
        version = str(json.loads(manifest.read_text())["version"])
        return int(version.split(".")[0]), version
    except (OSError, ValueError, KeyError, TypeError):
        return None


def typescript_lib(root: Path) -> Path | None:
    """The tsserver to use: the repository's TypeScript ≤ 6, else the bot's own pinned one."""
    own = typescript_version(root)
    if own is not None and own[0] <= 6 and (root / "node_modules/typescript/lib/tsserver.js").is_file():
        return root / "node_modules" / "typescript" / "lib"
    bundled = toolpath.tools_dir() / "node_modules" / "typescript" / "lib"
    return bundled if (bundled / "tsserver.js").is_file() else None


def variant(spec: ServerSpec, repo: Path) -> ServerSpec:
    """The spec that fits this repository (TypeScript 7 is its own server)."""
    if spec is TYPESCRIPT:
        own = typescript_version(repo)
        if own is not None and own[0] >= 7:
            return TYPESCRIPT_NATIVE
    return spec


def find_binary(spec: ServerSpec, repo: Path) -> str | None:
    if spec is TYPESCRIPT_NATIVE:
        # Only the repository's own TypeScript 7 compiler, never a tsc found on PATH.
        local = repo / "node_modules" / ".bin" / "tsc"
        return str(local) if local.is_file() else None
    if spec is TYPESCRIPT and typescript_lib(repo) is None:
        return None  # typescript-language-server without a tsserver would fail at initialize
    return toolpath.find_executable(spec.executables, repo)


def launch(spec: ServerSpec, repo: Path, executable: str, project: Path | None = None) -> Launch:
    """argv, initializationOptions, settings and environment for `spec` in `repo` (the head
    checkout), for the server rooted at `project` (default: `repo`)."""
    init = dict(spec.init_options)
    settings = dict(spec.settings)
    env = dict(spec.env)
    if spec is GOPLS:
        go = goenv.environment(project or repo, os.environ)
        env.update(go)
        settings["gopls"] = {**settings.get("gopls", {}), "env": go}
        init["env"] = go
    if spec is TYPESCRIPT:
        lib = typescript_lib(repo)
        init["tsserver"] = {**init.get("tsserver", {}), "path": str(lib) if lib else None}
    if spec.import_language == "python":
        python = _repo_python(repo)
        if python is not None:
            # The base worktree has no virtualenv of its own: both revisions use the head's.
            settings["python"] = {**settings.get("python", {}), "pythonPath": str(python)}
    return Launch(spec, (executable, *spec.args), init, settings, env)


def with_scratch(launch: Launch, scratch: Path) -> Launch:
    """`launch` with its build output in `scratch`, the session's own temporary folder:
    rust-analyzer's `cargo.targetDir: true` would write `target/` inside the checkout."""
    if not launch.spec.scratch_target:
        return launch
    target = str(scratch / "target")

    def moved(config: Mapping[str, Any]) -> dict[str, Any]:
        return {**config, "cargo": {**config.get("cargo", {}), "targetDir": target}}

    settings = {**launch.settings, "rust-analyzer": moved(launch.settings.get("rust-analyzer", {}))}
    return Launch(launch.spec, launch.argv, moved(launch.init_options), settings,
                  {**launch.env, "CARGO_TARGET_DIR": target})


def _repo_python(repo: Path) -> Path | None:
    for venv in (".venv", "venv", "env"):
        candidate = repo / venv / "bin" / "python"
        if candidate.is_file():
            return candidate
    return None
