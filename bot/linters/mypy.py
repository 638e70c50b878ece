"""mypy (`-O json`, or the text format before mypy 1.11): project scope, no server needed.

Used when the repository configures mypy (`[tool.mypy]`, `mypy.ini`, `.mypy.ini`). When the
configuration names what to check (`files`, `packages`, `modules`) mypy checks exactly that,
so a change that breaks an untouched module is seen; otherwise it checks the changed files and
whatever they import. Notes are folded into the error they belong to.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bot import proc
from bot.analyzer import Target, TreeView
from bot.errors import GarbageOutput
from bot.linters.base import LinterSpec, Unit, json_lines, relpath, version_tuple
from bot.model import Finding, Severity, Span
from bot.revisions.deps import VENVS

CONFIG_FILES = ("mypy.ini", ".mypy.ini", "pyproject.toml")
COMMON = ["--no-error-summary", "--no-color-output", "--show-error-codes"]
_TEXT = re.compile(r"^(?P<path>[^:\n]+?):(?P<line>\d+)(?::(?P<col>\d+))?"
                   r"(?::(?P<eline>\d+):(?P<ecol>\d+))?: (?P<sev>error|warning|note): "
                   r"(?P<msg>.*?)(?:  \[(?P<code>[\w-]+)\])?$")


def _settings(root: Path) -> dict[str, Any] | None:
    """The [mypy] settings, in mypy's own lookup order; None when mypy is not configured."""
    for name in ("mypy.ini", ".mypy.ini"):
        path = root / name
        if path.is_file():
            import configparser  # here: a review without mypy's files never needs the parsers

            parser = configparser.ConfigParser()
            try:
                parser.read(path, encoding="utf-8")
            except (configparser.Error, UnicodeDecodeError):
                return {}
            return dict(parser["mypy"]) if parser.has_section("mypy") else {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            text = pyproject.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if "mypy" not in text:  # no [tool.mypy] possible: spares parsing (and importing) TOML
            return None
        import tomllib

        try:
            tool = tomllib.loads(text).get("tool") or {}
        except tomllib.TOMLDecodeError:
            return None
        if "mypy" in tool:
            return dict(tool["mypy"])
    return None


def detect(root: Path) -> bool:
    return _settings(root) is not None


def configured_targets(root: Path) -> bool:
    settings = _settings(root) or {}
    return any(settings.get(key) for key in ("files", "packages", "modules"))


def units(tree: TreeView, paths: Sequence[str]) -> list[Unit]:
    if not paths:
        return []
    # A type error can appear in any module that imports a changed one.
    key_files = tree.walk(".", frozenset({".py", ".pyi"}), frozenset({*CONFIG_FILES, "setup.cfg"}))
    return [Unit(".", tuple(paths), ".", tuple(key_files))]


def _targets(unit: Unit, target: Target) -> list[str]:
    return [] if configured_targets(target.root) else ["--", *unit.paths]


def _interpreter(root: Path) -> list[str]:
    """The repository's own virtualenv, where its dependencies (and their types) are installed:
    mypy resolves imports from the environment it is told about, not from the one it runs in.
    A `python_executable` in the configuration is the repository's own choice and wins."""
    if "python_executable" in (_settings(root) or {}):
        return []
    for name in VENVS:
        python = root / name / "bin" / "python"
        if python.exists():
            return ["--python-executable", str(python)]
    return []


def command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-O", "json", *COMMON, *_interpreter(target.root), *_targets(unit, target)]


def command_text(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, *COMMON, "--show-column-numbers", "--show-error-end", "--no-pretty",
            *_interpreter(target.root), *_targets(unit, target)]


def _finding(path: str, line: int, column: int, end_line: int, end_column: int,
             severity: str, message: str, code: str | None) -> Finding:
    line = max(1, line)
    column = max(1, column)
    end_line = max(line, end_line)
    if end_line == line and end_column <= column:
        end_column = column + 1
    # A standalone note (reveal_type) has no error code of its own; JSON says "misc".
    code = "note" if severity == "note" else code
    return Finding("mypy", code or "misc",
                   Severity.parse(severity), message, path, Span(line, column, end_line, end_column),
                   f"https://mypy.readthedocs.io/en/stable/_refs.html#code-{code}" if code else None)


def parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    any_finding = False
    # mypy prints plain text for usage errors ("Cannot read file", bad config): garbage.
    for item in json_lines(result):
        path = relpath(target.root, str(item["file"]), unit.cwd)
        if path is None:
            continue
        message = str(item["message"])
        if item.get("hint"):  # the notes that follow an error in the text format
            message = f"{message}\n{item['hint']}"
        # JSON columns are 0-based, ends exclusive.
        any_finding = True
        yield _finding(path, int(item["line"]), int(item.get("column") or 0) + 1,
                       int(item.get("end_line") or item["line"]), int(item.get("end_column") or 0) + 1,
                       str(item.get("severity") or "error"), message, item.get("code"))
    if result.returncode == 2 and not any_finding:
        raise GarbageOutput(f"mypy exited 2: {result.err_tail(5)}")


def parse_text(result: proc.Result, unit: Unit, target: Target) -> list[Finding]:
    """`path:line:col:end_line:end_col: severity: message  [code]`, 1-based, ends inclusive.
    A note on the same line as the error just before it is part of that error."""
    findings: list[Finding] = []
    for raw in result.lines():
        match = _TEXT.match(raw.rstrip())
        if not match:
            if raw.strip():
                raise GarbageOutput(f"unexpected line: {raw[:200]}")
            continue
        path = relpath(target.root, match["path"], unit.cwd)
        if path is None:
            continue
        line = int(match["line"])
        previous = findings[-1] if findings else None
        if (match["sev"] == "note" and previous is not None and previous.path == path
                and previous.line == line and previous.severity > Severity.INFO):
            findings[-1] = dataclasses.replace(previous, message=f"{previous.message}\n{match['msg']}")
            continue
        column = int(match["col"] or 1)
        findings.append(_finding(path, line, column, int(match["eline"] or line),
                                 int(match["ecol"] or column) + 1, match["sev"], match["msg"],
                                 match["code"]))
    if result.returncode == 2 and not findings:
        raise GarbageOutput(f"mypy exited 2: {result.err_tail(5)}")
    return findings


def for_version(spec: LinterSpec, version: str | None) -> LinterSpec:
    if version and version_tuple(version) < (1, 11):  # -O json arrived in mypy 1.11
        return dataclasses.replace(spec, command=command_text, parse=parse_text)
    return spec


SPEC = LinterSpec(
    name="mypy",
    extensions=frozenset({".py", ".pyi"}),
    executables=("mypy",),
    install_hint="pip install mypy",
    config_files=CONFIG_FILES,
    detect=detect,
    command=command,
    parse=parse,
    scope="project",
    units=units,
    ok_exit_codes=frozenset({0, 1, 2}),  # 2: blocking errors (syntax), still reported
    beyond_paths=True,
    for_version=for_version,
    memory_heavy=True,  # hundreds of MB on a large change: beside another only where memory allows
)
