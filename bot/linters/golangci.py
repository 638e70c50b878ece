"""golangci-lint (v2 `--output.json.path=stdout`; v1 `--out-format=json`): package scope.

One unit per Go package holding changed files; the packages of one module share one run.
Fixes come from `SuggestedFixes` (v2, byte offsets, base64 text) or `Replacement` (v1).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from bot import proc
from bot.analyzer import Target, TreeView
from bot.errors import GarbageOutput
from bot.linters.base import LinterSpec, Unit, relpath, version_tuple
from bot.lsp import goenv
from bot.model import Applicability, Edit, Finding, Fix, Severity, Span
from bot.positions import LineIndex, byte_to_column
from bot.revisions.trees import nearest_dir_with
from bot.toolpath import go_module_version

CONFIG_FILES = (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
MODULE_FILES = frozenset({"go.mod", "go.sum", "go.work", "go.work.sum"})
# Flags shared by both majors: every issue (the base and the head must be cut the same way,
# so no per-linter caps, and not one issue per line: a line a formatter splits in two would
# show the one it hid as new) and no lock against the other revision's concurrent run.
COMMON = ["--max-issues-per-linter=0", "--max-same-issues=0", "--uniq-by-line=false",
          "--allow-parallel-runners"]
# "path:line:col: message" lines inside a typecheck issue's text.
_TYPECHECK_LINE = re.compile(r"^(?P<path>[^\s:][^:]*\.go):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.+)$")
_CODE = re.compile(r"^(?P<code>[A-Z]{1,4}\d{3,5}|[a-z][a-z0-9]+): ")


def units(tree: TreeView, paths: Sequence[str]) -> list[Unit]:
    """One unit per package (folder) holding changed files, run from its module's root."""
    packages: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        module = nearest_dir_with(tree, path, ["go.mod"]) or "."
        packages.setdefault((module, str(PurePosixPath(path).parent)), []).append(path)
    module_files: dict[str, tuple[str, ...]] = {}
    out = []
    for (module, package), files in sorted(packages.items()):
        if module not in module_files:
            # Go type-checks across packages: a change in one package of the module can break
            # another, so a package's result depends on the whole module's Go sources.
            module_files[module] = tuple(tree.walk(module, frozenset({".go"}), MODULE_FILES,
                                                   stop="go.mod"))
        out.append(Unit(module, tuple(files), package, module_files[module]))
    return out


def group(todo: Sequence[Unit]) -> list[list[Unit]]:
    by_module: dict[str, list[Unit]] = {}
    for unit in todo:
        by_module.setdefault(unit.cwd, []).append(unit)
    return list(by_module.values())


def _patterns(unit: Unit) -> list[str]:
    packages = sorted({str(PurePosixPath(p).parent) for p in unit.paths})
    base = PurePosixPath(unit.cwd)
    out = []
    for package in packages:
        rel = PurePosixPath(package).relative_to(base) if unit.cwd != "." else PurePosixPath(package)
        out.append("./" if str(rel) == "." else f"./{rel}/")
    return out


def _read_only(unit: Unit, target: Target) -> str:
    """Never let the go command update the checkout's go.mod/go.sum (a developer's
    GOFLAGS=-mod=mod would): the flag beats GOFLAGS; a vendored module reads vendor/."""
    return "--modules-download-mode=" + goenv.mod_flag(target.root / unit.cwd).split("=", 1)[1]


def command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "run", "--output.json.path=stdout", "--show-stats=false",
            "--path-mode=abs", _read_only(unit, target), *COMMON, *_patterns(unit)]


def command_v1(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "run", "--out-format=json", "--print-issued-lines=false",
            _read_only(unit, target), *COMMON, *_patterns(unit)]


def for_version(spec: LinterSpec, version: str | None) -> LinterSpec:
    if version and version_tuple(version)[:1] == (1,):
        return dataclasses.replace(spec, command=command_v1)
    return spec


def _read(root: Path, path: str) -> bytes:
    try:
        return (root / path).read_bytes()
    except OSError:
        return b""


def _line_text(data: bytes, line: int) -> str:
    lines = data.split(b"\n")
    return lines[line - 1].decode("utf-8", "replace") if 0 < line <= len(lines) else ""


def _suggested(raw: list[dict[str, Any]], path: str, data: bytes) -> Fix | None:
    fixes = []
    index = LineIndex.of_bytes(data)
    for suggested in raw:
        edits = []
        for edit in suggested.get("TextEdits") or []:
            span = index.span(int(edit["Pos"]), int(edit.get("End") or edit["Pos"]))
            text = base64.b64decode(edit.get("NewText") or "").decode("utf-8", "replace")
            edits.append(Edit(path, span, text))
        if edits:
            fixes.append((str(suggested.get("Message") or "golangci-lint fix"), tuple(edits)))
    if not fixes:
        return None
    # `golangci-lint --fix` applies a lone fix; alternatives need a human to pick one.
    return Fix(fixes[0][0], fixes[0][1], Applicability.SAFE if len(fixes) == 1 else Applicability.UNSAFE)


def _replacement(issue: dict[str, Any], path: str, data: bytes, line: int) -> Fix | None:
    """v1 `Replacement`: whole lines (`NewLines`, `NeedOnlyDelete`) or one `Inline` edit."""
    raw = issue.get("Replacement")
    if not isinstance(raw, dict):
        return None
    rng = issue.get("LineRange") or {}
    first, last = int(rng.get("From") or line), int(rng.get("To") or line)
    inline = raw.get("Inline")
    if isinstance(inline, dict):
        text = _line_text(data, line)
        start = int(inline.get("StartCol") or 0)
        span = Span(line, byte_to_column(text, start), line,
                    byte_to_column(text, start + int(inline.get("Length") or 0)))
        edit = Edit(path, span, str(inline.get("NewString") or ""))
    elif raw.get("NeedOnlyDelete"):
        edit = Edit(path, Span(first, 1, last + 1, 1), "")
    elif raw.get("NewLines") is not None:
        new = "".join(f"{ln}\n" for ln in raw["NewLines"])
        edit = Edit(path, Span(first, 1, last + 1, 1), new)
    else:
        return None
    return Fix("golangci-lint fix", (edit,), Applicability.SAFE)


def _typecheck(issue: dict[str, Any], unit: Unit, target: Target) -> list[Finding]:
    """Compile errors arrive as one `typecheck` issue pinned to the package's first file,
    with the real positions inside the text: one finding per such line."""
    out = []
    for raw in str(issue.get("Text") or "").splitlines():
        match = _TYPECHECK_LINE.match(raw.strip())
        if not match:
            continue
        path = relpath(target.root, match["path"], unit.cwd)
        if path is None or not (target.root / path).is_file():
            continue
        line = int(match["line"])
        text = _line_text(_read(target.root, path), line)
        column = byte_to_column(text, int(match["col"] or 1) - 1)
        out.append(Finding("golangci-lint", "typecheck", Severity.ERROR, match["msg"], path,
                           Span(line, column, line, column + 1)))
    return out


def _severity(raw: object) -> Severity:
    try:
        return Severity.parse(str(raw))
    except KeyError:  # "", or a configured word we do not know: golangci fails the build
        return Severity.ERROR


def _rule(linter: str, text: str) -> str:
    # staticcheck-family codes ("SA4006: ...") and govet analyzers ("printf: ...") name the
    # actual check; keep them so matching never pairs two different checks of one linter.
    match = _CODE.match(text)
    return f"{linter}/{match['code']}" if match else linter


def parse(result: proc.Result, unit: Unit, target: Target) -> list[Finding]:
    text = result.out.strip()
    if not text:
        if result.returncode == 0:
            return []
        raise GarbageOutput("no JSON on stdout")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GarbageOutput(f"not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise GarbageOutput("expected {Issues, Report}")
    report = data.get("Report") or {}
    if report.get("Error"):
        raise GarbageOutput(str(report["Error"]))
    findings: list[Finding] = []
    files: dict[str, bytes] = {}
    for issue in data.get("Issues") or []:
        linter = str(issue.get("FromLinter") or "golangci-lint")
        typecheck = _typecheck(issue, unit, target) if linter == "typecheck" else []
        if typecheck:
            findings.extend(typecheck)
            continue
        pos = issue.get("Pos") or {}
        path = relpath(target.root, str(pos.get("Filename") or ""), unit.cwd)
        if path is None:
            continue
        data_bytes = files.setdefault(path, _read(target.root, path))
        line = max(1, int(pos.get("Line") or 1))
        column = byte_to_column(_line_text(data_bytes, line), max(0, int(pos.get("Column") or 1) - 1))
        message = str(issue.get("Text") or "")
        fix = (_suggested(issue["SuggestedFixes"], path, data_bytes)
               if issue.get("SuggestedFixes") else _replacement(issue, path, data_bytes, line))
        findings.append(Finding("golangci-lint", _rule(linter, message), _severity(issue.get("Severity")),
                                message, path, Span(line, column, line, column + 1),
                                f"https://golangci-lint.run/docs/linters/configuration/#{linter}",
                                fix, not pos.get("Line")))
    return findings


def unread(root: Path, paths: Sequence[str]) -> frozenset[str]:
    """The `_test.go` files among `paths` whose configuration says `run.tests: false`."""
    out = set()
    tests: dict[str, bool] = {}
    for path in paths:
        if not path.endswith("_test.go"):
            continue
        folder = str(PurePosixPath(path).parent)
        if folder not in tests:
            tests[folder] = _lints_tests(root, folder)
        if not tests[folder]:
            out.add(path)
    return frozenset(out)


def _lints_tests(root: Path, folder: str) -> bool:
    """`run.tests` of the configuration golangci-lint finds from `folder` up to `root` (it
    searches the folder it runs in and those above); true by default."""
    directory = root / folder
    while True:
        for name in CONFIG_FILES:
            config = directory / name
            if config.is_file():
                return _run_tests(config) is not False
        if directory == root or directory == directory.parent:
            return True
        directory = directory.parent


def _run_tests(config: Path) -> object:
    import yaml  # (a YAML error is no ValueError; the TOML and JSON ones are)

    try:
        text = config.read_text("utf-8", errors="replace")
        if config.suffix == ".toml":
            import tomllib
            data: object = tomllib.loads(text)
        elif config.suffix == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError):
        return None  # golangci-lint reports the broken file itself
    run = data.get("run") if isinstance(data, dict) else None
    return run.get("tests") if isinstance(run, dict) else None


def read_version(exe: str) -> str | None:
    """From the binary's Go build information (`go install` records the module version)."""
    return (go_module_version(exe, "github.com/golangci/golangci-lint/v2")
            or go_module_version(exe, "github.com/golangci/golangci-lint"))


SPEC = LinterSpec(
    name="golangci-lint",
    extensions=frozenset({".go"}),
    executables=("golangci-lint",),
    install_hint="go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0 "
                 "(or scripts/install-tools.sh)",
    config_files=CONFIG_FILES,
    command=command,
    parse=parse,
    scope="package",
    units=units,
    group=group,
    alone_after=frozenset({"typecheck"}),
    # 0 clean, 1 issues, 5 no Go files in the named packages (all excluded by build tags).
    ok_exit_codes=frozenset({0, 1, 5}),
    # A `go`/`toolchain` line newer than the installed Go fails clearly; nothing is downloaded.
    env={"GOTOOLCHAIN": "local"},
    beyond_paths=True,
    unread=unread,
    for_version=for_version,
    read_version=read_version,
    memory_heavy=True,  # hundreds of MB on a large change: beside another only where memory allows
)
