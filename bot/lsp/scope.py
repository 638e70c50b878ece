"""What a language server still has to look at when a linter of the review already
type-checked the changed packages (gopls after golangci-lint, rust-analyzer after clippy).

golangci-lint's `typecheck` and clippy's rustc errors are the compiler's verdict on the
packages they ran over; the server would repeat it there. What neither sees is the breakage in
*other* packages that import a changed one: that stays the server's. Fail closed: only a
linter that ran and said ok for a file (`Target.checked`) covers it, so when the linter failed,
timed out, was switched off or is not installed, the server checks everything again.

Pure functions over repo-relative paths; `crates` is the one walk over the checkout.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bot.lsp.importers import SKIP_DIRS
from bot.lsp.servers import ServerSpec


def covered_units(spec: ServerSpec, paths: Sequence[str], checked: Mapping[str, frozenset[str]],
                  crate_of: Mapping[str, str | None] | None = None) -> frozenset[str]:
    """The units (Go package folders, or Rust crate folders) of the changed `paths` whose
    every changed file of the server's language a linter in `spec.covered_by` checked."""
    done: set[str] = set()
    for tool in spec.covered_by:
        done |= checked.get(tool, frozenset())
    units: dict[str, bool] = {}
    for path in paths:
        if spec.language_id(path) is None:
            continue
        unit = unit_of(spec, path, crate_of)
        if unit is None:
            continue
        units[unit] = units.get(unit, True) and path in done
    return frozenset(unit for unit, all_done in units.items() if all_done)


def unit_of(spec: ServerSpec, path: str, crate_of: Mapping[str, str | None] | None = None
            ) -> str | None:
    if spec.coverage_unit == "crate":
        return (crate_of or {}).get(path)
    return posixpath.dirname(path)


def beyond(spec: ServerSpec, files: Iterable[str], covered: frozenset[str],
           crate_of: Mapping[str, str | None] | None = None) -> list[str]:
    """`files` outside the covered units."""
    return [p for p in files if unit_of(spec, p, crate_of) not in covered]


# -- Rust: a crate's dependents are other crates of the checkout ---------------------------


def crates(checkout: Path) -> list[str]:
    """Folders (repo-relative, "" for the root) holding a Cargo.toml with a [package]."""
    found = []
    for directory, dirs, files in os.walk(checkout):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        if "Cargo.toml" in files:
            try:
                text = (Path(directory) / "Cargo.toml").read_text("utf-8", errors="replace")
            except OSError:
                continue
            if "[package]" in text:
                rel = Path(directory).relative_to(checkout).as_posix()
                found.append("" if rel == "." else rel)
    return sorted(found)


def crate_of(paths: Iterable[str], all_crates: Sequence[str]) -> dict[str, str | None]:
    """The innermost crate folder holding each path (None outside every crate)."""
    ordered = sorted(all_crates, key=len, reverse=True)
    return {p: next((c for c in ordered if c == "" or p.startswith(c + "/")), None) for p in paths}
