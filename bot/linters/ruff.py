"""ruff (`ruff check --output-format=json-lines`, one finding per line, read as it streams):
file scope, fixes from `fix.edits`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bot import proc
from bot.analyzer import Target
from bot.errors import GarbageOutput
from bot.linters.base import LinterSpec, Unit, json_lines, relpath
from bot.model import Applicability, Edit, Finding, Fix, Severity, Span

CONFIG_FILES = ("ruff.toml", ".ruff.toml", "pyproject.toml")


def detect(root: Path) -> bool:
    if (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file():
        return True
    pyproject = root / "pyproject.toml"
    try:
        return pyproject.is_file() and "[tool.ruff" in pyproject.read_text("utf-8", "replace")
    except OSError:
        return False


def command(exe: str, unit: Unit, target: Target) -> list[str]:
    # --force-exclude: paths excluded by the config stay excluded even when named explicitly.
    return [exe, "check", "--output-format=json-lines", "--no-cache", "--force-exclude",
            "--exit-zero", "--", *unit.paths]


def _span(item: dict[str, object]) -> Span:
    start = item["location"]
    end = item.get("end_location") or start
    assert isinstance(start, dict) and isinstance(end, dict)
    return Span(int(start["row"]), int(start["column"]), int(end["row"]), int(end["column"]))


def _fix(item: dict[str, object], path: str) -> Fix | None:
    raw = item.get("fix")
    if not isinstance(raw, dict) or not raw.get("edits"):
        return None
    edits = tuple(Edit(path, _span({"location": e["location"], "end_location": e["end_location"]}),
                       str(e.get("content") or "")) for e in raw["edits"])
    named = {"safe": Applicability.SAFE, "unsafe": Applicability.UNSAFE}
    applicability = named.get(str(raw.get("applicability")), Applicability.DISPLAY)
    return Fix(str(raw.get("message") or "ruff fix"), edits, applicability)


def parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    paths: dict[str, str | None] = {}  # resolving a path costs system calls: once per file
    for item in json_lines(result):
        if not isinstance(item, dict):
            raise GarbageOutput("expected one JSON object per line")
        name = str(item["filename"])
        if name not in paths:
            paths[name] = relpath(target.root, name, unit.cwd)
        path = paths[name]
        if path is not None:
            yield _finding(item, path)


def _finding(item: dict[str, object], path: str) -> Finding:
    # ruff >= 0.17 emits some diagnostics with "code": null; the name is their identity.
    rule = item.get("code") or item.get("name") or "ruff"
    severity = Severity.parse(str(item.get("severity") or "error"))
    if item.get("location") is None:  # file-level, e.g. a syntax error at EOF
        span, file_level = Span(1, 1, 1, 1), True
    else:
        span, file_level = _span(item), False
    url = item.get("url")
    return Finding("ruff", str(rule), severity, str(item["message"]), path, span,
                   str(url) if url else None, _fix(item, path), file_level)


def read_version(exe: str) -> str | None:
    """A wheel-installed ruff's version (pip, uv) from the `ruff-X.Y.Z.dist-info` whose RECORD
    lists this very binary, without starting it; None for any other installation."""
    binary = Path(exe).resolve()
    for record in binary.parent.parent.glob("lib/python*/site-packages/ruff-*.dist-info/RECORD"):
        try:
            listed = record.read_text("utf-8").splitlines()
        except OSError:
            continue
        site = record.parent.parent
        if any((site / line.partition(",")[0]).resolve() == binary for line in listed
               if line.partition(",")[0].endswith(f"bin/{binary.name}")):
            return record.parent.name.removeprefix("ruff-").removesuffix(".dist-info")
    return None


SPEC = LinterSpec(
    name="ruff",
    extensions=frozenset({".py", ".pyi"}),
    executables=("ruff",),
    install_hint="pip install ruff",
    config_files=CONFIG_FILES,
    detect=detect,
    command=command,
    parse=parse,
    ok_exit_codes=frozenset({0}),
    read_version=read_version,
    # 200 files in some 20 ms: a file per entry (about 1 ms each) would cost more than ruff.
    cache_packed=True,
)
