"""The read-only Go environment (pure, on folders)."""

from __future__ import annotations

from pathlib import Path

from bot.lsp import goenv


def test_the_developers_mod_choice_is_replaced_and_the_rest_kept(tmp_path: Path) -> None:
    assert goenv.goflags("-mod=mod -tags=integration", tmp_path) == "-tags=integration -mod=readonly"
    assert goenv.goflags("--mod=mod", tmp_path) == "-mod=readonly"
    assert goenv.environment(tmp_path, {}) == {"GOFLAGS": "-mod=readonly", "GOTOOLCHAIN": "local"}


def test_a_vendored_module_reads_its_vendor_folder(tmp_path: Path) -> None:
    (tmp_path / "vendor").mkdir()
    assert goenv.mod_flag(tmp_path) == "-mod=readonly"  # a vendor/ folder alone is not vendoring
    (tmp_path / "vendor" / "modules.txt").write_text("# example.com/lib v1.0.0\n")
    assert goenv.goflags("-mod=mod", tmp_path) == "-mod=vendor"
