"""What a language server leaves to a linter that type-checked the changed packages."""

from __future__ import annotations

from pathlib import Path

from bot.lsp import scope, servers


def test_a_package_is_covered_only_when_the_linter_checked_every_changed_file_of_it() -> None:
    paths = ["a/x.go", "a/y.go", "b/z.go", "main.go", "README.md"]
    checked = {"golangci-lint": frozenset({"a/x.go", "a/y.go", "b/other.go", "main.go"})}
    assert scope.covered_units(servers.GOPLS, paths, checked) == {"a", ""}
    # Another tool's run covers nothing; nor does a linter that did not run (fail closed).
    assert scope.covered_units(servers.GOPLS, paths, {"ruff": checked["golangci-lint"]}) == set()
    assert scope.covered_units(servers.GOPLS, paths, {}) == set()
    assert scope.beyond(servers.GOPLS, ["a/w.go", "b/z.go", "c/v.go"], frozenset({"a"})) == [
        "b/z.go", "c/v.go"]


def test_rust_units_are_crates(tmp_path: Path) -> None:
    for folder, text in (("", "[workspace]\n"), ("core", "[package]\n"), ("app", "[package]\n"),
                         ("target/debug/x", "[package]\n")):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "Cargo.toml").write_text(text)
    crates = scope.crates(tmp_path)
    assert crates == ["app", "core"]  # the workspace root has no package; target/ is skipped
    owner = scope.crate_of(["core/src/lib.rs", "app/src/main.rs", "build.rs"], crates)
    assert owner == {"core/src/lib.rs": "core", "app/src/main.rs": "app", "build.rs": None}
    covered = scope.covered_units(servers.RUST_ANALYZER, ["core/src/lib.rs"],
                                  {"clippy": frozenset({"core/src/lib.rs"})}, owner)
    assert covered == {"core"}
