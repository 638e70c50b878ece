"""Cut the subset of a Swagger 2.0 description that a fake forge validates against.

  cut-swagger-subset.py --operations OPS --out OUT [--fixes FIXES] SOURCE...

SOURCE is a whole description (a JSON file), or `KEY=FILE` for a description kept in parts
(FILE is the value of the top-level KEY; a plain FILE among parts gives the other keys).
OPS lists the operations to keep, one `METHOD /path/template` a line (`#` starts a comment);
a template may be a key of `paths` or of `x-ms-paths` (Azure DevOps keeps operations that
differ only by a query parameter there). `DEFINITION name` keeps a definition no reference
reaches: the subtype a `discriminator` names (Bitbucket's pipeline targets). Each operation is
copied unchanged, with its path item's shared parameters and everything its `#/...`
references reach (definitions, parameters, responses), transitively; `x-ms-examples` are left
out (they point to files beside the source). FIXES is a JSON list of `{"op": "add"|"replace"|
"remove", "path": JSON pointer, "value": ..., "why": "..."}` applied to the cut afterwards,
for the defects the description has; each one's `why` belongs in the subset's README.

The cut is written as JSON, keys in the source's order, so a re-cut diffs cleanly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

KEPT = ("swagger", "info", "host", "basePath", "schemes", "consumes", "produces",
        "securityDefinitions", "security")


def load(sources: list[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for source in sources:
        key, _, name = source.rpartition("=") if "=" in source else ("", "", source)
        value = json.loads(Path(name).read_text(encoding="utf-8-sig"))
        if key:
            doc[key] = value
        else:
            doc.update({k: v for k, v in value.items() if k not in doc})
    return doc


def operations(text: str) -> list[tuple[str, str]]:
    """`(method, template)` pairs; `("definition", name)` for a definition kept by name."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            method, template = line.split(None, 1)
            out.append((method.lower(), template))
    return out


def _pointer(parts: list[str]) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _parts(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("#/").split("/")]


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for k, v in node.items() if k != "x-ms-examples" for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def _strip_examples(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_examples(v) for k, v in node.items() if k != "x-ms-examples"}
    if isinstance(node, list):
        return [_strip_examples(v) for v in node]
    return node


def cut(doc: dict[str, Any], wanted: list[tuple[str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {k: doc[k] for k in KEPT if k in doc}
    named = [f"#/definitions/{name}" for method, name in wanted if method == "definition"]
    for method, template in wanted:
        if method == "definition":
            continue
        section = next((s for s in ("paths", "x-ms-paths")
                        if method in doc.get(s, {}).get(template, {})), None)
        if section is None:
            raise SystemExit(f"{method.upper()} {template}: not in the source")
        item = doc[section][template]
        kept = out.setdefault(section, {}).setdefault(template, {})
        if "parameters" in item:
            kept["parameters"] = item["parameters"]
        kept[method] = _strip_examples(item[method])
    pending = _refs(out) + named
    seen: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in seen or not ref.startswith("#/"):
            continue
        seen.add(ref)
        parts = _parts(ref)
        target: Any = doc
        for part in parts:
            target = target[part]
        holder = out
        for part in parts[:-1]:
            holder = holder.setdefault(part, {})
        holder[parts[-1]] = target
        pending += _refs(target)
    # definitions etc. in the source's order
    for section in ("definitions", "parameters", "responses"):
        if section in out:
            out[section] = {k: out[section][k] for k in doc[section] if k in out[section]}
    return out


def fix(doc: dict[str, Any], fixes: list[dict[str, Any]]) -> dict[str, Any]:
    for f in fixes:
        parts = _parts(f["path"])
        holder: Any = doc
        for part in parts[:-1]:
            holder = holder[int(part)] if isinstance(holder, list) else holder[part]
        last = parts[-1]
        key: int | str = int(last) if isinstance(holder, list) else last
        if f["op"] != "add" and (key not in holder if isinstance(key, str)
                                 else not 0 <= key < len(holder)):
            raise SystemExit(f"fix {f['path']}: nothing to {f['op']}")
        if f["op"] == "remove":
            del holder[key]
        elif f["op"] == "add" and isinstance(key, int):
            holder.insert(key, f["value"])
        else:
            holder[key] = f["value"]
    return doc


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", required=True, type=Path)
    parser.add_argument("--fixes", type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args(argv)
    subset = cut(load(args.sources), operations(args.operations.read_text()))
    if args.fixes:
        subset = fix(subset, json.loads(args.fixes.read_text()))
    args.out.write_text(json.dumps(subset, indent=1, ensure_ascii=False) + "\n")
    count = sum(len([m for m in item if m != "parameters"])
                for s in ("paths", "x-ms-paths") for item in subset.get(s, {}).values())
    print(f"{args.out}: {count} operations, {len(subset.get('definitions', {}))} definitions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
