"""python-gitlab stays inside bot/forges/gitlab/client.py: no other module imports it."""

from __future__ import annotations

import ast

from tests.conftest import ROOT


def importers(package: str) -> set[str]:
    out = set()
    for path in (ROOT / "bot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            if any(n == package or n.startswith(package + ".") for n in names):
                out.add(path.relative_to(ROOT).as_posix())
    return out


def test_only_the_gitlab_forge_imports_python_gitlab() -> None:
    assert importers("gitlab") == {"bot/forges/gitlab/client.py"}
    assert importers("github")  # the scan does see SDK imports
