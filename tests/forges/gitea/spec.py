"""Requests and answers checked against Gitea's own API description.

`gitea-api-v1-subset.json` is a Swagger 2.0 cut of Gitea's `templates/swagger/v1_json.tmpl`
(MIT, see its `info`) at go-gitea/gitea 67ce9ca11034c00ea81f36f0e574529079534071, a pre-1.23
API: the operations a review bot uses (31 paths, 45 operations), each path item copied
unchanged, with the definitions and responses they reach. The issue timeline (its path item,
`TimelineComment`, `TrackedTime`, `TimelineList`) is copied unchanged from the same file at
002a46fed3379adf97f976dd6d4e9023e8699497. `gitea-1.26-resolve.json` adds the
two operations Gitea 1.26 added
(go-gitea/gitea#36441: resolve and unresolve a review comment), described as that pull
request describes them, for a fake that plays a 1.26 server.

openapi-core reads OpenAPI 3 only, so the schemas are checked with jsonschema (draft 4, which
Swagger 2.0's schema objects are), `$ref`s resolved inside the document. Every object schema
that declares properties is closed (`additionalProperties: false`) for the check: Gitea
decodes bodies into Go structs and drops keys they do not declare, so a key the description
does not know is a key Gitea never reads, and a test must see it.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

HERE = Path(__file__).resolve().parent
BASE = "/api/v1"
URI = "urn:gitea-api"


@cache
def document(resolve: bool = False) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((HERE / "gitea-api-v1-subset.json").read_text())
    if resolve:
        extra = json.loads((HERE / "gitea-1.26-resolve.json").read_text())
        doc = {**doc, "paths": {**doc["paths"], **extra["paths"]}}
    return doc


def _closed(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _closed(v) for k, v in node.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_closed(v) for v in node]
    return node


@cache
def _registry() -> Registry[Any]:
    closed = _closed(copy.deepcopy(document()))
    return Registry().with_resource(URI, Resource.from_contents(closed, default_specification=DRAFT4))


def schema_errors(schema: dict[str, Any], value: Any, where: str) -> list[str]:
    """`value` against a schema of the description (its `$ref`s point into it)."""
    rooted = json.loads(json.dumps(schema).replace('"#/', f'"{URI}#/'))
    validator = jsonschema.Draft4Validator(_closed(rooted), registry=_registry())
    return [f"{where}: {'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in validator.iter_errors(value)]


@cache
def _templates(resolve: bool) -> list[tuple[re.Pattern[str], str, int]]:
    out = []
    for template in document(resolve)["paths"]:
        pattern = ""
        for part in re.split(r"(\{[^}]+\})", template):
            if part.startswith("{"):
                name = part[1:-1]
                pattern += f"(?P<{name}>.+)" if name == "filepath" else f"(?P<{name}>[^/]+?)"
            else:
                pattern += re.escape(part)
        literal = len(re.sub(r"\{[^}]+\}", "", template))
        out.append((re.compile(f"^{pattern}$"), template, literal))
    return out


def operation(method: str, path: str, resolve: bool = False
              ) -> tuple[str, dict[str, Any], dict[str, str]] | None:
    """The operation `method path` (path without /api/v1) is, its template and path values."""
    found = []
    for rx, template, literal in _templates(resolve):
        match = rx.match(path)
        op = document(resolve)["paths"][template].get(method.lower())
        if match and op is not None:
            found.append((literal, template, op, match.groupdict()))
    if not found:
        return None
    _, template, op, values = max(found, key=lambda f: f[0])
    return template, op, values


def _typed(kind: str, value: str) -> bool:
    if kind == "integer":
        return re.fullmatch(r"-?\d+", value) is not None
    if kind == "boolean":
        return value in ("true", "false")
    return True


def request_errors(method: str, path: str, query: dict[str, list[str]], body: bytes,
                   resolve: bool = False) -> list[str]:
    """Everything Gitea's description says is wrong with one request; [] when none."""
    found = operation(method, path, resolve)
    if found is None:
        return [f"{method} {path}: no such operation in Gitea's API description"]
    template, op, values = found
    where = f"{method} {template}"
    errors: list[str] = []
    params = op.get("parameters", [])
    for p in params:
        name, kind = p.get("name"), p.get("type", "")
        if p.get("in") == "path":
            value = values.get(name, "")
            if not _typed(kind, value):
                errors.append(f"{where}: path parameter {name}={value!r} is not {kind}")
            if "enum" in p and value not in p["enum"]:
                errors.append(f"{where}: path parameter {name}={value!r} not in {p['enum']}")
        if p.get("in") == "query" and name in query:
            for value in query[name]:
                if kind != "array" and not _typed(kind, value):
                    errors.append(f"{where}: query parameter {name}={value!r} is not {kind}")
    declared = {p["name"] for p in params if p.get("in") == "query"}
    errors += [f"{where}: undeclared query parameter {k!r}" for k in query if k not in declared]
    schema = next((p.get("schema") for p in params if p.get("in") == "body"), None)
    required = any(p.get("in") == "body" and p.get("required") for p in params)
    if not body:
        if required:
            errors.append(f"{where}: the body is required")
        return errors
    if schema is None:
        return [*errors, f"{where}: takes no body"]
    try:
        value = json.loads(body)
    except ValueError:
        return [*errors, f"{where}: the body is not JSON"]
    return errors + schema_errors(schema, value, f"{where} body")


def response_errors(method: str, path: str, status: int, value: Any,
                    resolve: bool = False) -> list[str]:
    """The fake's own answer against the operation's response for `status`."""
    found = operation(method, path, resolve)
    if found is None:
        return []
    template, op, _ = found
    where = f"{method} {template} answer {status}"
    response = op.get("responses", {}).get(str(status))
    if response is None:
        return [f"{where}: status {status} is not a documented answer"]
    while "$ref" in response:
        response = document(resolve)["responses"][response["$ref"].rsplit("/", 1)[1]]
    schema = response.get("schema")
    if schema is None or value is None or isinstance(value, bytes):
        return []
    return schema_errors(schema, value, where)
