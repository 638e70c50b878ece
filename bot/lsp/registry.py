"""The language servers the review can run, by tool name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.analyzer import Analyzer
from bot.lsp import servers
from bot.lsp.analyzer import LspAnalyzer


def _uses(spec: servers.ServerSpec) -> Callable[[Path], bool]:
    def chosen(root: Path) -> bool:
        return servers.python_checker(root) is spec
    return chosen


SERVERS: dict[str, Analyzer] = {
    "basedpyright": LspAnalyzer(servers.BASEDPYRIGHT, chosen=_uses(servers.BASEDPYRIGHT)),
    "pyright": LspAnalyzer(servers.PYRIGHT, chosen=_uses(servers.PYRIGHT)),
    "typescript": LspAnalyzer(servers.TYPESCRIPT),
    "gopls": LspAnalyzer(servers.GOPLS),
    "rust-analyzer": LspAnalyzer(servers.RUST_ANALYZER),
}
