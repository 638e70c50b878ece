"""cargo clippy for real on temporary crates with no dependencies (nothing to download)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import proc
from bot.analyzer import Target
from bot.linters import clippy
from bot.linters.base import Unit
from bot.model import Severity, Span
from bot.revisions.trees import DiskView
from tests.linters.conftest import lint, write

MANIFEST = '[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'

MAIN = """
mod util;

fn main() {
    let v: Vec<i32> = Vec::new();
    if v.len() == 0 {
        println!("é {}", util::twice(2));
    }
}
"""

UTIL = """
pub fn twice(x: i32) -> i32 {
    let unused = 3;
    x * 2
}
"""


@pytest.fixture
def crate(tmp_path: Path) -> Path:
    return write(tmp_path, {"Cargo.toml": MANIFEST.format(name="demo"), "src/main.rs": MAIN,
                            "src/util.rs": UTIL})


def test_clippy_and_rustc_warnings_with_fixes(crate: Path) -> None:
    outcome = lint(clippy.SPEC, crate, ["src/main.rs", "src/util.rs"])
    assert outcome.status == "ok", outcome.message
    rules = {f.rule: f for f in outcome.findings}
    len_zero = rules["clippy::len_zero"]
    assert (len_zero.path, len_zero.span) == ("src/main.rs", Span(5, 8, 5, 20))
    assert len_zero.severity == Severity.WARNING
    assert len_zero.url and len_zero.url.endswith("#len_zero")
    assert len_zero.fix is not None and len_zero.fix.applicability == "safe"
    assert [(e.span, e.new_text) for e in len_zero.fix.edits] == [(Span(5, 8, 5, 20), "v.is_empty()")]
    unused = rules["unused_variables"]
    assert (unused.path, unused.span.line) == ("src/util.rs", 2)
    assert unused.fix is not None and unused.fix.edits[0].new_text == "_unused"
    # --all-targets compiles the binary twice (bin and test): each finding is reported once.
    assert len(outcome.findings) == len(set(outcome.findings)) == 2


def test_compile_error_is_a_finding_and_breaks_elsewhere_are_kept(crate: Path) -> None:
    # The change to util.rs breaks untouched main.rs (twice() now takes a string).
    (crate / "src/util.rs").write_text("pub fn twice(x: &str) -> usize {\n    x.len() * 2\n}\n")
    outcome = lint(clippy.SPEC, crate, ["src/util.rs"])
    assert outcome.status == "ok", outcome.message
    [error] = [f for f in outcome.findings if f.severity == Severity.ERROR]
    assert (error.path, error.rule, error.span.line) == ("src/main.rs", "E0308", 6)
    assert "mismatched types" in error.message and "expected `&str`" in error.message
    assert "src/main.rs" in outcome.extra_paths


def test_workspace_member_paths_are_relative_to_the_workspace(tmp_path: Path) -> None:
    write(tmp_path, {
        "Cargo.toml": '[workspace]\nmembers = ["crates/a"]\nresolver = "2"\n',
        "crates/a/Cargo.toml": MANIFEST.format(name="a"),
        "crates/a/src/lib.rs": "pub fn f(v: &[u8]) -> bool {\n    v.len() == 0\n}\n",
    })
    [unit] = clippy.units(DiskView(tmp_path), ["crates/a/src/lib.rs"])
    assert (unit.cwd, unit.dir) == ("crates/a", "crates/a")
    assert {"Cargo.toml", "crates/a/Cargo.toml", "crates/a/src/lib.rs"} <= set(unit.key_files)
    outcome = lint(clippy.SPEC, tmp_path, ["crates/a/src/lib.rs"])
    assert [(f.path, f.rule, f.span.line) for f in outcome.findings] == [
        ("crates/a/src/lib.rs", "clippy::len_zero", 2)]


def test_broken_manifest_is_a_failure(crate: Path) -> None:
    (crate / "Cargo.toml").write_text("[package]\nname = \n")
    outcome = lint(clippy.SPEC, crate, ["src/main.rs"])
    assert outcome.status == "failed"
    assert "src/main.rs" in outcome.failed_paths
    assert "Cargo.toml" in outcome.message


def test_files_outside_any_crate_are_not_linted(tmp_path: Path) -> None:
    write(tmp_path, {"scripts/x.rs": "fn main() {}\n"})
    assert clippy.units(DiskView(tmp_path), ["scripts/x.rs"]) == []


def test_maybe_incorrect_suggestion_is_unsafe(tmp_path: Path) -> None:
    line = ('{"reason":"compiler-message","message":{"level":"warning","message":"m",'
            '"code":{"code":"clippy::x"},"spans":[{"file_name":"src/lib.rs","is_primary":true,'
            '"line_start":1,"line_end":1,"column_start":1,"column_end":2,"label":null,'
            '"suggested_replacement":null,"expansion":null}],"children":[{"level":"help",'
            '"message":"try","spans":[{"file_name":"src/lib.rs","is_primary":true,"line_start":1,'
            '"line_end":1,"column_start":1,"column_end":2,"suggested_replacement":"y",'
            '"suggestion_applicability":"MaybeIncorrect"}]}]}}')
    write(tmp_path, {"src/lib.rs": "x\n"})
    result = proc.Result(("cargo",), 0, (line + "\nnot json from a build script\n").encode(), b"")
    [finding] = clippy.parse(result, Unit(".", ("src/lib.rs",)), Target(tmp_path, "x", (), "head"))
    assert finding.fix is not None and finding.fix.applicability == "unsafe"


def test_garbage_json_line_is_refused(tmp_path: Path) -> None:
    result = proc.Result(("cargo",), 0, b'{"reason": "compiler-message", "mess\n', b"")
    with pytest.raises(clippy.GarbageOutput):
        list(clippy.parse(result, Unit(".", ()), Target(tmp_path, "x", (), "head")))
