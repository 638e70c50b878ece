"""typescript-language-server (with a TypeScript ≤ 6) for real, through the whole pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.lsp import servers
from bot.lsp.registry import SERVERS
from tests.conftest import ROOT, GitRepo, require_tool
from tests.lsp.conftest import leftovers, review, status, table

TSCONFIG = json.dumps({"compilerOptions": {"strict": True, "noEmit": True, "target": "es2022",
                                           "module": "esnext", "moduleResolution": "bundler"}})
A = "export function add(a: number, b: number): number {\n  return a + b;\n}\n"
B = ('import { add } from "./a";\n\n'
     "export const total: number = add(1, 2);\n"
     'export const legacy: string = 3; // preexisting\n')
BUNDLED = ROOT / "tools" / "node_modules" / "typescript"


@pytest.fixture(autouse=True)
def _tools() -> None:
    require_tool("typescript-language-server")
    assert (BUNDLED / "lib" / "tsserver.js").is_file(), "run scripts/install-tools.sh"


def start(repo: GitRepo) -> None:
    repo.commit({"tsconfig.json": TSCONFIG, ".gitignore": "node_modules/\n", "src/a.ts": A,
                 "src/b.ts": B, "src/other.ts": "export const o: number = 1;\n"}, "base")
    repo.branch("feature")


def test_signature_change_breaks_untouched_importer(repo: GitRepo) -> None:
    start(repo)
    repo.commit({"src/a.ts": A.replace("b: number)", "b: number, c: number)")})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert status(result, "typescript")[0] == "ok"
    rows = table(result)
    assert ("TS2554", "src/b.ts", 3, "introduced", "elsewhere") in rows
    assert ("TS2322", "src/b.ts", 4, "preexisting", None) in rows
    assert not [r for r in rows if r[1] == "src/other.ts"]


def test_repository_typescript_is_used(repo: GitRepo) -> None:
    start(repo)
    (repo.path / "node_modules").mkdir()
    (repo.path / "node_modules" / "typescript").symlink_to(BUNDLED)
    repo.commit({"src/c.ts": 'import { add } from "./a.js";\nadd("😀x", 1);\n'})
    result = review(repo, SERVERS)
    run = next(t for t in result.tools if t.name == "typescript")
    assert run.version == f"TypeScript {json.loads((BUNDLED / 'package.json').read_text())['version']}"
    introduced = [v for v in result.findings if v.scope == "introduced"]
    assert [(v.finding.rule, v.finding.path, v.finding.span.column, v.finding.span.end_column)
            for v in introduced] == [("TS2345", "src/c.ts", 5, 9)]


def test_typescript_7_uses_its_own_server(tmp_path: Path) -> None:
    ts = tmp_path / "node_modules" / "typescript"
    ts.mkdir(parents=True)
    (ts / "package.json").write_text('{"name": "typescript", "version": "7.0.2"}')
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "tsc").write_text("#!/bin/sh\n")
    spec = servers.variant(servers.TYPESCRIPT, tmp_path)
    assert spec is servers.TYPESCRIPT_NATIVE and spec.completion == "pull"
    assert servers.find_binary(spec, tmp_path) == str(tmp_path / "node_modules/.bin/tsc")
    # typescript-language-server itself would fall back to the bot's own TypeScript.
    assert servers.typescript_lib(tmp_path) == BUNDLED / "lib"
    launch = servers.launch(spec, tmp_path, "tsc")
    assert launch.argv == ("tsc", "--lsp", "--stdio")


NATIVE = ROOT / "tools" / "node_modules" / "typescript-7"  # typescript@7 (setup installs it)


def test_typescript_7_for_real(repo: GitRepo) -> None:
    """A repository on TypeScript 7: its own `tsc --lsp --stdio`, pull diagnostics, and the
    importer of a changed module checked too."""
    assert (NATIVE / "bin" / "tsc").is_file(), "run scripts/install-tools.sh"
    start(repo)
    modules = repo.path / "node_modules"
    (modules / ".bin").mkdir(parents=True)
    (modules / "typescript").symlink_to(NATIVE)
    (modules / ".bin" / "tsc").symlink_to(Path("..") / "typescript" / "bin" / "tsc")
    repo.commit({"src/a.ts": A.replace("b: number)", "b: number, c: number)")})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert status(result, "typescript")[0] == "ok", status(result, "typescript")[1]
    run = next(t for t in result.tools if t.name == "typescript")
    assert run.version is not None and "7.0" in run.version, run.version
    rows = table(result)
    assert ("TS2554", "src/b.ts", 3, "introduced", "elsewhere") in rows
    assert ("TS2322", "src/b.ts", 4, "preexisting", None) in rows
    assert not [r for r in rows if r[1] == "src/other.ts"]


def test_an_importer_through_a_path_alias_is_checked(repo: GitRepo) -> None:
    config = json.dumps({"compilerOptions": {**json.loads(TSCONFIG)["compilerOptions"],
                                             "paths": {"@/*": ["./src/*"]}}})
    repo.commit({"tsconfig.json": config, "src/a.ts": A,
                 "web/page.ts": 'import { add } from "@/a";\nexport const p: number = add(1, 2);\n'})
    repo.branch("feature")
    repo.commit({"src/a.ts": A.replace("b: number)", "b: number, c: number)")})
    rows = table(review(repo, {"typescript": SERVERS["typescript"]}))
    assert ("TS2554", "web/page.ts", 2, "introduced", "elsewhere") in rows


def test_an_importer_through_a_barrel_is_checked(repo: GitRepo) -> None:
    repo.commit({"tsconfig.json": TSCONFIG, "src/a.ts": A, "src/index.ts": 'export * from "./a";\n',
                 "web/page.ts": 'import { add } from "../src";\nexport const p: number = add(1, 2);\n'})
    repo.branch("feature")
    repo.commit({"src/a.ts": A.replace("b: number)", "b: number, c: number)")})
    rows = table(review(repo, {"typescript": SERVERS["typescript"]}))
    assert ("TS2554", "web/page.ts", 2, "introduced", "elsewhere") in rows


def test_a_run_leaves_nothing_in_the_temporary_folder(repo: GitRepo, private_tmpdir: Path) -> None:
    start(repo)
    repo.commit({"src/a.ts": A.replace("b: number)", "b: number, c: number)")})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert status(result, "typescript")[0] == "ok", status(result, "typescript")[1]
    assert ("TS2554", "src/b.ts", 3, "introduced", "elsewhere") in table(result)
    assert leftovers(private_tmpdir) == []
