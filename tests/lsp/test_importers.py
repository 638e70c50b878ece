"""The importer scan: which files import a changed module (Python, TypeScript, Go)."""

from __future__ import annotations

from pathlib import Path

from bot.lsp import importers


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_python_forms(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "", "pkg/a.py": "", "pkg/sub/__init__.py": "",
        "abs.py": "import pkg.a\n",
        "alias.py": "import pkg.a as A\n",
        "fromname.py": "from pkg import a\n",
        "fromattr.py": "from pkg.a import add\n",
        "pkg/rel.py": "from .a import add\n",
        "pkg/reldot.py": "from . import a\n",
        "pkg/sub/up.py": "from ..a import add\n",
        "nested.py": "def f():\n    from pkg.a import add\n",
        "other.py": "import pkg\nfrom pkg import b\n# pkg.a in a comment\n",
        "string.py": "x = 'from pkg.a import add'\n",
        ".venv/lib/dep.py": "from pkg.a import add\n",
    })
    assert importers.find_importers("python", tmp_path, ["pkg/a.py"]) == [
        "abs.py", "alias.py", "fromattr.py", "fromname.py", "nested.py", "pkg/rel.py",
        "pkg/reldot.py", "pkg/sub/up.py"]


def test_python_src_layout_and_packages(tmp_path: Path) -> None:
    write(tmp_path, {"src/lib/core/__init__.py": "", "tests/t.py": "from lib.core import X\n",
                     "src/lib/user.py": "from .core import X\n"})
    assert importers.find_importers("python", tmp_path, ["src/lib/core/__init__.py"]) == [
        "src/lib/user.py", "tests/t.py"]


def test_typescript_forms(tmp_path: Path) -> None:
    write(tmp_path, {
        "src/a.ts": "", "src/x/index.ts": "",
        "src/b.ts": 'import { add } from "./a";\n',
        "src/c.tsx": "import type { T } from './a.js';\nexport const C = () => <div/>;\n",
        "src/d.ts": 'export * from "./a";\n',
        "src/e.js": 'const a = require("./a");\n',
        "src/f.ts": 'const m = await import("./a");\n',
        "src/g.ts": 'import { y } from "./x";\n',
        "lib/h.ts": 'import { add } from "../src/a";\n',
        "src/not.ts": 'import { a } from "a";\nconst s = "./a";\n',
        "node_modules/p/i.ts": 'import { add } from "../../src/a";\n',
    })
    assert importers.find_importers("typescript", tmp_path, ["src/a.ts", "src/x/index.ts"]) == [
        "lib/h.ts", "src/b.ts", "src/c.tsx", "src/d.ts", "src/e.js", "src/f.ts", "src/g.ts"]


def test_typescript_path_aliases_and_base_url(tmp_path: Path) -> None:
    write(tmp_path, {
        "tsconfig.base.json": '{\n  // shared\n  "compilerOptions": {"baseUrl": ".",\n'
                              '    "paths": {"@lib/*": ["packages/lib/src/*"],\n'
                              '              "#cfg": ["config/index.ts"],},\n'
                              '  },\n}\n',
        "tsconfig.json": '{"extends": "./tsconfig.base", /* app */ "compilerOptions": {"strict": true}}',
        "packages/lib/src/math/add.ts": "", "config/index.ts": "", "src/util.ts": "",
        "app/a.ts": 'import { add } from "@lib/math/add";\n',
        "app/b.ts": 'import cfg from "#cfg";\n',
        "app/c.ts": 'import { u } from "src/util";\n',  # through baseUrl
        "app/d.ts": 'import { add } from "@lib/math/other";\nimport x from "lodash/add";\n',
    })
    changed = ["packages/lib/src/math/add.ts", "config/index.ts", "src/util.ts"]
    assert importers.find_importers("typescript", tmp_path, changed) == ["app/a.ts", "app/b.ts", "app/c.ts"]


def test_tsconfig_paths_without_base_url_are_relative_to_their_config() -> None:
    config = importers.ts_paths([("web", '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}')])
    assert importers.alias_targets("@/a/b", config) == ["web/src/a/b"]
    assert importers.alias_targets("react", config) == []
    broken = importers.ts_paths([("", "{not json")])
    assert broken == importers.TsPaths()


def test_go_importers_and_siblings(tmp_path: Path) -> None:
    write(tmp_path, {
        "go.mod": "module example.com/m\n\ngo 1.22\n",
        "pkg/calc/calc.go": "package calc\n", "pkg/calc/more.go": "package calc\n",
        "main.go": 'package main\n\nimport (\n\t"fmt"\n\tc "example.com/m/pkg/calc"\n)\n',
        "cmd/x/x.go": 'package main\n\nimport "example.com/m/pkg/calcx"\n',
        "vendor/v/v.go": 'package v\n\nimport "example.com/m/pkg/calc"\n',
    })
    assert importers.find_importers("go", tmp_path, ["pkg/calc/calc.go"]) == [
        "main.go", "pkg/calc/more.go"]


def test_unknown_language_and_nothing_changed(tmp_path: Path) -> None:
    assert importers.find_importers("rust", tmp_path, ["src/lib.rs"]) == []
    assert importers.find_importers("python", tmp_path, []) == []


def test_pure_targets() -> None:
    imp = importers.PyImport(level=2, module="core", names=("X",))
    assert importers.python_targets("src/lib/sub/m.py", imp) == {
        "src.lib.core", "src.lib.core.X", "lib.core", "lib.core.X"}
    assert importers.ts_keys("a/index.tsx") == {"a/index", "a"}
    assert importers.go_module_path('module "x.org/y"\n') == "x.org/y"


def test_importers_through_reexports(tmp_path: Path) -> None:
    """A package's __init__ and a TypeScript barrel pass a change on to their own importers."""
    write(tmp_path, {
        "pkg/__init__.py": "from .a import add\n", "pkg/a.py": "", "pkg/other.py": "",
        "app.py": "from pkg import add\n",
        "uses_other.py": "from pkg.other import thing\n",  # a sibling module: not reached
        "src/core/a.ts": "", "src/core/index.ts": 'export { add } from "./a";\n',
        "src/index.ts": 'export * from "./core";\n',  # a barrel of barrels
        "web/page.ts": 'import { add } from "../src";\n',
        "web/core.ts": 'import { add } from "../src/core";\n',
        "web/other.ts": 'import { x } from "../src/other";\n',
    })
    assert importers.find_importers("python", tmp_path, ["pkg/a.py"]) == ["app.py", "pkg/__init__.py"]
    assert importers.find_importers("typescript", tmp_path, ["src/core/a.ts"]) == [
        "src/core/index.ts", "src/index.ts", "web/core.ts", "web/page.ts"]


def test_go_packages_imported_with_a_dot(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/m\n\ngo 1.22\n",
        "a/a.go": "package a\n",
        "b/b.go": "package b\n",
        "c/c.go": "package c\n",
        "use/dot.go": 'package use\n\nimport (\n\t. "example.com/m/a"\n\tbee "example.com/m/b"\n)\n',
        "use/plain.go": 'package use\n\nimport "example.com/m/c"\n',
        "use/text.go": 'package use\n\n// . "example.com/m/c" in a comment is no import\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert importers.go_dot_imported(tmp_path, ["a", "b", "c"]) == {"a"}
    (tmp_path / "go.mod").unlink()  # import paths unknown: every package may be
    assert importers.go_dot_imported(tmp_path, ["b"]) == {"b"}
