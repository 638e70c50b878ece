"""Which files import a changed module: the files a type checker must see beyond the diff.

A signature change in `a.py` breaks untouched `b.py`; a server that only sees open files never
says so. A tree-sitter scan of import statements finds those files: direct importers (the
breakage a change causes shows at the call sites that name it), and importers through files
that pass imports on (a package's `__init__`, a TypeScript barrel), TypeScript path aliases
(`paths`, `baseUrl` in tsconfig.json) included. Pure extraction functions
over source bytes, resolution over repo-relative paths, and one file walk at the edge.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tree_sitter_language_pack import get_parser

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "env", "__pycache__", "vendor",
                       "target", "dist", "build", ".tox", ".nox", ".mypy_cache", ".ruff_cache",
                       "site-packages", ".basedpyright", "out"})
MAX_FILES = 50_000  # files looked at per scan
MAX_IMPORTERS = 200  # files handed to the server beyond the diff
SUFFIXES = {
    "python": (".py", ".pyi"),
    "typescript": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
    "go": (".go",),
}
_TS_EXT = re.compile(r"(\.d)?\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$")


@dataclass(frozen=True)
class PyImport:
    level: int  # leading dots of a relative import; 0 = absolute
    module: str  # dotted module ("" for `from . import x`)
    names: tuple[str, ...]  # imported names of `from … import …` (empty for `import x`)


# -- extraction (pure) ---------------------------------------------------------------------


@cache
def parser(language: str) -> Any:
    return get_parser(language)  # type: ignore[arg-type]


def walk(node: Any) -> Iterator[Any]:
    """The node and everything under it, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def node_text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", errors="replace")


def python_imports(source: bytes) -> list[PyImport]:
    found: list[PyImport] = []
    for node in walk(parser("python").parse(source).root_node):
        if node.type == "import_statement":
            for name in node.children_by_field_name("name"):
                dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
                found.append(PyImport(0, node_text(dotted), ()))
        elif node.type == "import_from_statement":
            module = node.child_by_field_name("module_name")
            if module is None:
                continue
            level, dotted = 0, node_text(module)
            if module.type == "relative_import":
                prefix = next((c for c in module.children if c.type == "import_prefix"), None)
                level = len(node_text(prefix)) if prefix is not None else 1
                inner = next((c for c in module.children if c.type == "dotted_name"), None)
                dotted = node_text(inner) if inner is not None else ""
            names = []
            for name in node.children_by_field_name("name"):
                dotted_name = name.child_by_field_name("name") if name.type == "aliased_import" else name
                names.append(node_text(dotted_name))
            found.append(PyImport(level, dotted, tuple(names)))
    return found


def ts_specifiers(source: bytes, tsx: bool = False) -> list[str]:
    """Module specifiers of import/export-from statements, require() and import() calls."""
    tree = parser("tsx" if tsx else "typescript").parse(source)
    found: list[str] = []
    for node in walk(tree.root_node):
        if node.type in ("import_statement", "export_statement"):
            source_node = node.child_by_field_name("source")
            if source_node is not None:
                found.append(_string(source_node))
        elif node.type == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is None or arguments is None:
                continue
            if function.type == "import" or node_text(function) == "require":
                first = next((c for c in arguments.children if c.type == "string"), None)
                if first is not None:
                    found.append(_string(first))
    return found


def go_imports(source: bytes) -> list[str]:
    found: list[str] = []
    for node in walk(parser("go").parse(source).root_node):
        if node.type == "import_spec":
            path = node.child_by_field_name("path")
            if path is not None:
                found.append(node_text(path).strip("\"`"))
    return found


def go_dot_imports(source: bytes) -> list[str]:
    """The import paths this file imports with `.` (their names then need no qualifier)."""
    found: list[str] = []
    for node in walk(parser("go").parse(source).root_node):
        if node.type == "import_spec":
            name, path = node.child_by_field_name("name"), node.child_by_field_name("path")
            if name is not None and path is not None and node_text(name) == ".":
                found.append(node_text(path).strip("\"`"))
    return found


def _string(node: Any) -> str:
    fragment = next((c for c in node.children if c.type == "string_fragment"), None)
    return node_text(fragment) if fragment is not None else node_text(node).strip("'\"`")


# -- resolution (pure) ---------------------------------------------------------------------


def python_modules(path: str) -> set[str]:
    """Dotted names a file can be imported as (with and without a leading `src/`)."""
    stem = path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    names = {".".join(parts)} if parts else set()
    if len(parts) > 1 and parts[0] in ("src", "lib"):
        names.add(".".join(parts[1:]))
    return names


def python_targets(importer: str, imp: PyImport) -> set[str]:
    """Absolute dotted modules an import statement in `importer` may refer to."""
    if imp.level:
        package = importer.split("/")[:-1]
        up = imp.level - 1
        if up > len(package):
            return set()
        base = package[: len(package) - up]
        prefix = ".".join([*base, *([imp.module] if imp.module else [])])
        roots = {prefix}
        if base and base[0] in ("src", "lib"):
            roots.add(".".join([*base[1:], *([imp.module] if imp.module else [])]))
    else:
        roots = {imp.module}
    targets = set(roots)
    for root in roots:
        targets.update(f"{root}.{name}" if root else name for name in imp.names)
    return {t for t in targets if t}


def imports_python(importer: str, source: bytes, changed: set[str], exact: bool = False) -> bool:
    """`exact`: the module itself or a name of it (`from pkg import f`), not its submodules
    (what a package's re-exports reach)."""
    for imp in python_imports(source):
        for target in python_targets(importer, imp):
            if target in changed or (not exact and any(target.startswith(c + ".") for c in changed)):
                return True
    return False


def ts_keys(path: str) -> set[str]:
    """What a relative specifier resolving to `path` looks like, extension-free."""
    stem = _TS_EXT.sub("", path)
    keys = {stem}
    if stem.endswith("/index"):
        keys.add(stem[: -len("/index")])
    return keys


@dataclass(frozen=True)
class TsPaths:
    """A tsconfig's module resolution shortcuts, folders repo-relative ("" = the root)."""

    base_url: str | None = None  # non-relative specifiers resolve from here too
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()  # ("@/*", ("src/*",)), in order
    paths_base: str = ""  # `paths` targets are relative to this folder


_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.S)


def parse_jsonc(text: str) -> Any:
    """JSON with comments and trailing commas, as tsconfig.json allows."""
    return json.loads(_JSONC.sub(lambda m: m.group(1) or "", text))


def ts_paths(configs: Iterable[tuple[str, str]]) -> TsPaths:
    """From (folder, tsconfig text) pairs, the extended config first: later ones override."""
    out = TsPaths()
    for folder, text in configs:
        try:
            options = (parse_jsonc(text) or {}).get("compilerOptions") or {}
        except (ValueError, AttributeError):
            continue
        base = options.get("baseUrl")
        if isinstance(base, str):
            out = TsPaths(_join(folder, base), out.paths, out.paths_base)
        paths = options.get("paths")
        if isinstance(paths, dict):
            pairs = tuple((k, tuple(t for t in v if isinstance(t, str))) for k, v in paths.items()
                          if isinstance(v, list))
            # Targets are relative to baseUrl when set, else to the config that declares them.
            out = TsPaths(out.base_url, pairs, out.base_url if out.base_url is not None else folder)
    return out


def _join(folder: str, rel: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, rel))
    return "" if joined == "." else joined


def alias_targets(spec: str, config: TsPaths) -> list[str]:
    """Where a non-relative specifier may point through `paths` and `baseUrl`."""
    out: list[str] = []
    for pattern, targets in config.paths:
        star = pattern.find("*")
        if star < 0:
            hit = spec == pattern
            rest = ""
        else:
            head, tail = pattern[:star], pattern[star + 1:]
            hit = spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail)
            rest = spec[len(head):len(spec) - len(tail)] if hit else ""
        if hit:
            out += [_join(config.paths_base, t.replace("*", rest)) for t in targets]
    if config.base_url is not None:
        out.append(_join(config.base_url, spec))
    return out


def imports_ts(importer: str, source: bytes, changed: set[str], config: TsPaths = TsPaths()) -> bool:
    directory = posixpath.dirname(importer)
    for spec in ts_specifiers(source, tsx=importer.endswith((".tsx", ".jsx"))):
        if spec.startswith("."):
            candidates = [posixpath.normpath(posixpath.join(directory, spec))]
        else:  # a package, or a path alias of this project
            candidates = alias_targets(spec, config)
        if any(_TS_EXT.sub("", c) in changed or c in changed for c in candidates):
            return True
    return False


def read_ts_paths(root: Path) -> TsPaths:
    """The project's tsconfig.json (or jsconfig.json), following relative `extends`."""
    chain: list[tuple[str, str]] = []
    name = next((n for n in ("tsconfig.json", "jsconfig.json") if (root / n).is_file()), None)
    current = root / name if name else None
    while current is not None and len(chain) < 5:
        try:
            text = current.read_text("utf-8", errors="replace")
        except OSError:
            break
        folder = current.parent.relative_to(root).as_posix() if current.parent != root else ""
        chain.insert(0, (folder, text))
        try:
            parent = (parse_jsonc(text) or {}).get("extends")
        except (ValueError, AttributeError):
            parent = None
        current = None
        if isinstance(parent, str) and parent.startswith("."):
            candidate = (root / folder / parent).resolve()
            if candidate.suffix != ".json":
                candidate = candidate.with_name(candidate.name + ".json")
            if candidate.is_relative_to(root.resolve()):
                current = root / candidate.relative_to(root.resolve())
    return ts_paths(chain)


def go_module_path(go_mod: str) -> str | None:
    match = re.search(r"^module\s+(\S+)", go_mod, re.M)
    return match.group(1).strip("\"`") if match else None


def go_packages(module: str, changed: Iterable[str]) -> set[str]:
    """Import paths of the packages (directories) holding the changed files."""
    out = set()
    for path in changed:
        directory = posixpath.dirname(path)
        out.add(f"{module}/{directory}" if directory else module)
    return out


# -- the scan (I/O) ------------------------------------------------------------------------


def source_files(root: Path, suffixes: tuple[str, ...]) -> Iterator[str]:
    """Repo-relative POSIX paths under `root`, sorted per directory, skipping vendored trees."""
    count = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        rel = Path(directory).relative_to(root).as_posix()
        for name in sorted(files):
            if name.endswith(suffixes):
                count += 1
                if count > MAX_FILES:
                    return
                yield name if rel == "." else f"{rel}/{name}"


_TS_REEXPORT = re.compile(rb"\bexport\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*(?:as\s+\w+\s*)?from\b")
REEXPORT_ROUNDS = 3  # barrels of barrels, at most this deep


def reexports(language: str, rel: str, source: bytes) -> bool:
    """Does this file pass on what it imports (a package `__init__`, a TypeScript barrel)?
    Its own importers then see a change to what it imports."""
    if language == "python":
        return posixpath.basename(rel) in ("__init__.py", "__init__.pyi")
    if language == "typescript":
        return _TS_REEXPORT.search(source) is not None
    return False


def find_importers(language: str, root: Path, changed: Iterable[str]) -> list[str]:
    """Files under `root` (paths relative to it) that import one of `changed`, which excluded;
    through re-exporting files too (`from pkg import f` when `pkg/__init__.py` imports the
    changed `pkg/a.py`; `import {f} from "./lib"` when `lib/index.ts` re-exports `./a`)."""
    seen = set(changed)
    found: list[str] = []
    frontier = sorted(seen)
    for round_ in range(REEXPORT_ROUNDS):
        # Past the first round, only what imports a re-exporter itself (not its submodules).
        more = [p for p in _direct_importers(language, root, frontier, exact=round_ > 0)
                if p not in seen]
        seen.update(more)
        found += more
        frontier = [p for p in more if reexports(language, p, _read(root / p))]
        if not frontier or len(found) >= MAX_IMPORTERS:
            break
    return sorted(found)[:MAX_IMPORTERS]


def go_dot_imported(root: Path, folders: Iterable[str]) -> set[str]:
    """Which of the package `folders` (relative to the module at `root`) a file under `root`
    imports with `.`."""
    try:
        module = go_module_path((root / "go.mod").read_text(errors="replace"))
    except OSError:
        module = None
    if module is None:
        return set(folders)  # unknown import paths: assume the worst
    paths = {(f"{module}/{f}" if f else module): f for f in folders}
    spells = _spells(p.encode() for p in paths)
    found: set[str] = set()
    for rel in source_files(root, SUFFIXES["go"]):
        source = _read(root / rel)
        if spells(rel, source):
            found.update(paths[p] for p in go_dot_imports(source) if p in paths)
    return found


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _direct_importers(language: str, root: Path, changed: Iterable[str], exact: bool = False
                      ) -> list[str]:
    """Files under `root` (paths relative to it) that import one of `changed`, which excluded."""
    changed_list = sorted({p for p in changed if p.endswith(SUFFIXES.get(language, ()))})
    if not changed_list or language not in SUFFIXES:
        return []
    excluded = set(changed_list)
    test, maybe = _matcher(language, root, changed_list, exact)
    if test is None:
        return []
    found: list[str] = []
    for rel in source_files(root, SUFFIXES[language]):
        if rel in excluded:
            continue
        try:
            source = (root / rel).read_bytes()
        except OSError:
            continue
        if not maybe(rel, source):
            continue
        if test(rel, source):
            found.append(rel)
            if len(found) >= MAX_IMPORTERS:
                break
    return found


Test = Callable[[str, bytes], bool]


def _spells(needles: Iterable[bytes]) -> Test:
    """Cheap prefilter: a file that never spells a module's name cannot import it."""
    kept = sorted(set(needles))
    return lambda _rel, source: any(n in source for n in kept)


def _matcher(language: str, root: Path, changed: list[str], exact: bool = False
             ) -> tuple[Test | None, Test]:
    if language == "python":
        modules: set[str] = set().union(*(python_modules(p) for p in changed))
        return ((lambda rel, src: imports_python(rel, src, modules, exact)),
                _spells(m.rsplit(".", 1)[-1].encode() for m in modules))
    if language == "typescript":
        keys: set[str] = set().union(*(ts_keys(p) for p in changed))
        config = read_ts_paths(root)
        # An exact alias ("#config" -> config/index.ts) need not spell the file's name.
        fixed = [pattern for pattern, _ in config.paths if "*" not in pattern]
        return ((lambda rel, src: imports_ts(rel, src, keys, config)),
                _spells([*(k.rsplit("/", 1)[-1].encode() for k in keys), *(f.encode() for f in fixed)]))
    if language == "go":
        return _go_matcher(root, changed)
    return None, _spells(())


def _go_matcher(root: Path, changed: list[str]) -> tuple[Test, Test]:
    try:
        module = go_module_path((root / "go.mod").read_text(errors="replace"))
    except OSError:
        module = None
    packages = go_packages(module, changed) if module else set()
    directories = {posixpath.dirname(p) for p in changed}

    def sibling(rel: str) -> bool:
        # Same directory = same package: a changed signature breaks its siblings too.
        return posixpath.dirname(rel) in directories

    spells = _spells(p.encode() for p in packages)
    return ((lambda rel, src: sibling(rel) or any(i in packages for i in go_imports(src))),
            (lambda rel, src: sibling(rel) or spells(rel, src)))
