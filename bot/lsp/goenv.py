"""The environment Go tools (gopls, golangci-lint) run in: they read the checkout, never write it.

With `-mod=mod` (in the developer's GOFLAGS, or a tool's own default) any `go list` may add a
missing `require` to go.mod or entries to go.sum; `-mod=readonly` makes such a module an error
the tool reports instead. A vendored module is read from `vendor/` (`-mod=vendor`, read-only
too), as the go command itself does by default. GOTOOLCHAIN=local: a `go`/`toolchain` line newer
than the installed Go fails clearly instead of downloading a toolchain.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def mod_flag(module: Path) -> str:
    """The read-only `-mod` mode for the module rooted at `module`."""
    return "-mod=vendor" if (module / "vendor" / "modules.txt").is_file() else "-mod=readonly"


def goflags(inherited: str, module: Path) -> str:
    """The developer's GOFLAGS with every `-mod` choice replaced by the read-only one."""
    kept = [flag for flag in inherited.split() if not flag.lstrip("-").startswith("mod=")]
    return " ".join([*kept, mod_flag(module)])


def environment(module: Path, inherited: Mapping[str, str]) -> dict[str, str]:
    """Variables to set on top of `inherited` (the bot's own environment) for a Go tool."""
    return {"GOFLAGS": goflags(inherited.get("GOFLAGS", ""), module), "GOTOOLCHAIN": "local"}
