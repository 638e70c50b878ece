"""cargo clippy (`--message-format=json`): crate scope.

One run per crate (the nearest `Cargo.toml` above each changed file; a workspace member runs in
its own folder). Compiler errors and warnings are findings too; fixes come from
`children[].spans[].suggested_replacement` with rustc's applicability.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from bot import proc
from bot.analyzer import Target, TreeView
from bot.errors import GarbageOutput
from bot.linters.base import LinterSpec, Unit, relpath
from bot.model import Applicability, Edit, Finding, Fix, Severity, Span
from bot.revisions.trees import nearest_dir_with

CONFIG_FILES = ("clippy.toml", ".clippy.toml")
CRATE_FILES = frozenset({"Cargo.toml", "Cargo.lock", "clippy.toml", ".clippy.toml",
                         "rust-toolchain", "rust-toolchain.toml"})
APPLICABILITY = {"MachineApplicable": Applicability.SAFE, "MaybeIncorrect": Applicability.UNSAFE}


def detect(root: Path) -> bool:
    return (root / "Cargo.toml").is_file()


def units(tree: TreeView, paths: Sequence[str]) -> list[Unit]:
    crates: dict[str, list[str]] = {}
    for path in paths:
        crate = nearest_dir_with(tree, path, ["Cargo.toml"])
        if crate is not None:  # a stray .rs outside any crate is not clippy's business
            crates.setdefault(crate, []).append(path)
    # Crates depend on each other by path (workspaces, path dependencies): a crate's result
    # depends on every Rust source and manifest of the repository.
    key_files = tuple(tree.walk(".", frozenset({".rs"}), CRATE_FILES)) if crates else ()
    return [Unit(crate, tuple(files), crate, key_files) for crate, files in sorted(crates.items())]


def command(exe: str, unit: Unit, target: Target) -> list[str]:
    # --keep-going: one target that fails to compile must not hide the others' diagnostics.
    return [exe, "clippy", "--message-format=json", "--all-targets", "--keep-going", "--quiet"]


def _resolve(target: Target, unit: Unit, file_name: str) -> str | None:
    """rustc names files relative to the workspace root, which may be any folder above the
    crate: take the first ancestor of the crate where the file exists."""
    if Path(file_name).is_absolute():
        return relpath(target.root, file_name)
    folder = PurePosixPath(unit.cwd)
    for candidate in [folder, *folder.parents]:
        path = relpath(target.root, file_name, str(candidate))
        if path is not None and (target.root / path).is_file():
            return path
    return None


def _primary(message: dict[str, Any], target: Target, unit: Unit) -> tuple[dict[str, Any], str] | None:
    """The primary span inside the checkout, following macro expansions back to the call site."""
    for span in message.get("spans") or []:
        if not span.get("is_primary"):
            continue
        while span is not None:
            path = _resolve(target, unit, str(span.get("file_name") or ""))
            if path is not None:
                return span, path
            span = (span.get("expansion") or {}).get("span")
    return None


def _span(raw: dict[str, Any]) -> Span:
    return Span(int(raw["line_start"]), int(raw["column_start"]), int(raw["line_end"]),
                int(raw["column_end"]))


def _fix(message: dict[str, Any], target: Target, unit: Unit) -> Fix | None:
    for child in message.get("children") or []:
        spans = [s for s in child.get("spans") or [] if s.get("suggested_replacement") is not None]
        if not spans:
            continue
        edits = []
        for span in spans:
            path = _resolve(target, unit, str(span.get("file_name") or ""))
            if path is None:
                return None  # a fix that also edits code outside the checkout is not ours to offer
            edits.append(Edit(path, _span(span), str(span["suggested_replacement"])))
        # The fix is trusted as far as its least trusted part.
        applicability = min((APPLICABILITY.get(str(s.get("suggestion_applicability")),
                                               Applicability.DISPLAY) for s in spans),
                            key=lambda a: a.rank, default=Applicability.SAFE)
        return Fix(str(child.get("message") or "clippy suggestion"), tuple(edits), applicability)
    return None


def _url(code: str) -> str | None:
    if code.startswith("clippy::"):
        return f"https://rust-lang.github.io/rust-clippy/master/index.html#{code.removeprefix('clippy::')}"
    if code.startswith("E") and code[1:].isdigit():
        return f"https://doc.rust-lang.org/error_codes/{code}.html"
    return None


def parse(result: proc.Result, unit: Unit, target: Target) -> Iterator[Finding]:
    errors = 0
    for line in result.lines():
        if not line.startswith("{"):
            continue  # cargo passes build-script output through; it is not ours
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise GarbageOutput(f"not JSON: {exc}") from exc
        if record.get("reason") != "compiler-message":
            continue
        message = record["message"]
        level = str(message.get("level") or "")
        if level not in ("error", "warning") and not level.startswith("error"):
            continue  # failure-note, note, help: not findings of their own
        primary = _primary(message, target, unit)
        if primary is None:
            continue  # "aborting due to …", "N warnings emitted", or code outside the checkout
        span, path = primary
        errors += level.startswith("error")
        code = str((message.get("code") or {}).get("code") or "rustc")
        text = str(message.get("message") or "")
        if span.get("label"):
            text = f"{text}: {span['label']}"
        yield Finding("clippy", code, Severity.ERROR if level.startswith("error")
                      else Severity.WARNING, text, path, _span(span), _url(code),
                      _fix(message, target, unit))
    if result.returncode != 0 and not errors:
        # 101 without a compiler error: the manifest, a dependency fetch or cargo itself failed.
        raise GarbageOutput(f"cargo exited {result.returncode}: {result.err_tail(5)}")


SPEC = LinterSpec(
    name="clippy",
    extensions=frozenset({".rs"}),
    executables=("cargo",),
    install_hint="rustup component add clippy",
    config_files=CONFIG_FILES,
    detect=detect,
    markers=("Cargo.toml",),
    command=command,
    parse=parse,
    scope="crate",
    stable_binary=False,  # rustup's cargo proxy: the toolchain may differ per call and folder
    read_only=False,  # build scripts run and may write anywhere in the crate: a real checkout
    units=units,
    ok_exit_codes=frozenset({0, 101}),  # 101: the crate does not compile (errors are findings)
    version_args=("clippy", "--version"),
    env={"CARGO_TERM_COLOR": "never"},
    beyond_paths=True,
    memory_heavy=True,  # hundreds of MB on a large change: beside another only where memory allows
)
