"""Validation of requests against GitHub's own published descriptions.

REST: `@octokit/openapi` (`generated/api.github.com.json`) through openapi-core, plus two
checks GitHub's description leaves open but GitHub enforces or ignores silently: query
parameters the operation does not declare, and JSON body keys its schema does not declare
(a `subject_type` inside a review's `comments[]` is silently dropped by GitHub: a test must
see it). GraphQL: `@octokit/graphql-schema` (`schema.json`), with deprecated fields refused.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import requests
from graphql import (
    GraphQLSchema,
    build_client_schema,
    parse,
    specified_rules,
    validate,
)
from graphql.error import GraphQLSyntaxError
from graphql.validation import NoDeprecatedCustomRule
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC_HOST = "http://spec.invalid/api/v3"


def node_modules() -> Path:
    """`<repo>/tools/node_modules`, or `$REVIEWBOT_TOOLS/node_modules`."""
    override = os.environ.get("REVIEWBOT_TOOLS")
    base = Path(override) if override else REPO_ROOT / "tools"
    path = base / "node_modules"
    if not (path / "@octokit").is_dir():
        raise RuntimeError(f"{path}/@octokit is missing: run scripts/install-tools.sh "
                           "(or set REVIEWBOT_TOOLS to the directory holding node_modules)")
    return path


@cache
def openapi_document() -> dict[str, Any]:
    path = node_modules() / "@octokit/openapi/generated/api.github.com.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@cache
def _openapi() -> OpenAPI:
    doc = dict(openapi_document())
    doc["servers"] = [{"url": SPEC_HOST}]
    # The description is GitHub's own; re-validating 13 MB of it costs seconds per session.
    return OpenAPI.from_dict(doc, config=Config(spec_validator_cls=None))


@cache
def _templates() -> list[tuple[re.Pattern[str], str, int]]:
    out = []
    for template in openapi_document()["paths"]:
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        literal = sum(1 for seg in template.split("/") if seg and not seg.startswith("{"))
        out.append((re.compile(f"^{pattern}$"), template, literal))
    return out


def operation(method: str, path: str) -> tuple[str, dict[str, Any]] | None:
    matches = [(lit, t) for rx, t, lit in _templates() if rx.match(path)]
    for _, template in sorted(matches, reverse=True):
        op = openapi_document()["paths"][template].get(method.lower())
        if op is not None:
            return template, op
    return None


def _resolve(node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = openapi_document()
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def rest_errors(method: str, path: str, query: dict[str, list[str]], body: bytes | None,
                headers: dict[str, str]) -> list[str]:
    """Everything wrong with one REST request; [] when GitHub's description accepts it."""
    found = operation(method, path)
    if found is None:
        return [f"{method} {path}: no such operation in GitHub's OpenAPI description"]
    template, op = found
    errors: list[str] = []
    params = [_resolve(p) for p in openapi_document()["paths"][template].get("parameters", [])]
    params += [_resolve(p) for p in op.get("parameters", [])]
    declared = {p["name"] for p in params if p.get("in") == "query"}
    errors += [f"{method} {template}: undeclared query parameter {k!r}"
               for k in query if k not in declared]
    url = SPEC_HOST + path + ("?" + urlencode(query, doseq=True) if query else "")
    content = {k: v for k, v in headers.items() if k.lower() == "content-type"}
    request = requests.Request(method, url, data=body, headers=content).prepare()
    try:
        _openapi().validate_request(RequestsOpenAPIRequest(request))
    except Exception as exc:  # openapi-core raises one of many validation error types
        detail = getattr(exc, "__cause__", None) or ""
        errors.append(f"{method} {template}: {exc} {detail}".strip())
    if body:
        try:
            value = json.loads(body)
        except ValueError:
            return [*errors, f"{method} {template}: body is not JSON"]
        schema = op.get("requestBody", {}).get("content", {}).get("application/json", {})
        errors += [f"{method} {template}: {e}" for e in
                   unknown_keys(_resolve(schema.get("schema", {})), value, "body")]
    return errors


def unknown_keys(schema: Any, value: Any, where: str) -> list[str]:
    """Keys of `value` that `schema` (and its allOf/anyOf/oneOf branches) never declares."""
    schema = _resolve(schema)
    if not isinstance(schema, dict):
        return []
    if isinstance(value, list):
        items = schema.get("items")
        return [e for i, v in enumerate(value) for e in unknown_keys(items, v, f"{where}[{i}]")]
    if not isinstance(value, dict):
        return []
    branches = [_resolve(b) for key in ("allOf", "anyOf", "oneOf") for b in schema.get(key, [])]
    props: dict[str, Any] = dict(schema.get("properties", {}))
    for branch in branches:
        props.update(branch.get("properties", {}) if isinstance(branch, dict) else {})
    if not props or schema.get("additionalProperties") not in (None, False):
        return []
    errors = [f"{where}: undeclared key {k!r}" for k in value if k not in props]
    for key, sub in value.items():
        if key in props:
            errors += unknown_keys(props[key], sub, f"{where}.{key}")
    return errors


@cache
def graphql_schema() -> GraphQLSchema:
    data = json.loads((node_modules() / "@octokit/graphql-schema/schema.json").read_text())
    schema = build_client_schema(data.get("data", data))
    # GitHub's schema deprecates fields on types but not on their interfaces, which
    # graphql-core's schema check rejects; documents are still validated in full below.
    schema._validation_errors = []
    return schema


def graphql_errors(document: str) -> list[str]:
    try:
        ast = parse(document)
    except GraphQLSyntaxError as exc:
        return [f"GraphQL syntax: {exc.message}"]
    rules = [*specified_rules, NoDeprecatedCustomRule]
    return [f"GraphQL: {e.message}" for e in validate(graphql_schema(), ast, rules)]
