"""Validation of requests against GitHub's own published descriptions.

REST: `@octokit/openapi` (`generated/api.github.com.json`) through openapi-core, plus two
checks GitHub's description leaves open but GitHub enforces or ignores silently: query
parameters the operation does not declare, and JSON body keys its schema does not declare
(a `subject_type` inside a review's `comments[]` is silently dropped by GitHub: a test must
see it). GraphQL: `@octokit/graphql-schema` (`schema.json`), with deprecated fields refused.

Swagger 2.0 descriptions cut into `tests/` (Bitbucket Cloud, Azure DevOps): `Swagger` below.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jsonschema
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
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

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


# -- Swagger 2.0 descriptions kept in tests (Bitbucket Cloud, Azure DevOps) -------------------


@dataclass(frozen=True)
class Described:
    """One operation a request named: its template, description and the values it was given."""

    template: str
    op: dict[str, Any]
    params: list[dict[str, Any]]  # the path item's and the operation's, `$ref`s resolved
    values: dict[str, str]  # path parameters


class Swagger:
    """Requests and answers checked against a Swagger 2.0 description cut into `tests/`
    (`scripts/cut-swagger-subset.py`): the operation exists; its path and query parameters are
    declared, typed and within their enums; required ones are there; a body is JSON of a media
    type the operation consumes and validates against its schema (jsonschema, draft 4, which
    Swagger 2.0's schema objects are). As for GitHub above, keys a schema never declares are
    refused, through `allOf` and, where a schema names a `discriminator`, through the subtype
    the value's discriminator names: the servers drop keys they do not know, so a test must
    see one. An `additionalProperties` that is a schema makes a map, open; `true` does not
    (Bitbucket's generator writes it on every object). Templates in `x-ms-paths` carry a
    query parameter after `?` that tells two operations on one path apart (Azure DevOps)."""

    def __init__(self, document: dict[str, Any], name: str) -> None:
        self.document = document
        self.name = name
        self._uri = f"urn:{re.sub(r'[^a-z0-9]+', '-', name.lower())}"
        self._registry: Registry[Any] = Registry().with_resource(
            self._uri, Resource.from_contents(document, default_specification=DRAFT4))
        self._templates: list[tuple[re.Pattern[str], str, str, tuple[str, ...], int]] = []
        for section in ("paths", "x-ms-paths"):
            for key in document.get(section, {}):
                template, _, fixed = key.partition("?")
                pattern = ""
                for part in re.split(r"(\{[^}]+\})", template):
                    if part.startswith("{"):
                        name_ = part[1:-1]
                        last = template.endswith(part)
                        # a file's path is one parameter across its slashes
                        pattern += f"(?P<{_group(name_)}>.+)" if name_ == "path" and last \
                            else f"(?P<{_group(name_)}>[^/]+)"
                    else:
                        pattern += re.escape(part)
                names = tuple(re.findall(r"([^&=]+)=\{[^}]+\}", fixed))
                literal = len(re.sub(r"\{[^}]+\}", "", template)) + 1000 * len(names)
                self._templates.append((re.compile(f"^{pattern}$"), section, key, names, literal))

    def resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target: Any = self.document
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def operation(self, method: str, path: str, query: dict[str, list[str]]
                  ) -> Described | None:
        """The operation `method path` (without the base path) is, if the description has it."""
        found = []
        for rx, section, key, names, literal in self._templates:
            match = rx.match(path)
            item = self.document[section][key]
            op = item.get(method.lower())
            if match and op is not None and all(n in query for n in names):
                params = {(p["name"], p["in"]): p for p in map(self.resolve, item.get(
                    "parameters", []))}
                params.update({(p["name"], p["in"]): p for p in map(self.resolve, op.get(
                    "parameters", []))})
                values = {_name(k): v for k, v in match.groupdict().items()}
                found.append((literal, Described(key, op, list(params.values()), values)))
        return max(found, key=lambda f: f[0])[1] if found else None

    def request_errors(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
                       content_type: str | None = None) -> list[str]:
        """Everything the description says is wrong with one request; [] when none."""
        found = self.operation(method, path, query)
        if found is None:
            return [f"{method} {path}: no such operation in {self.name}'s description"]
        where = f"{method} {found.template}"
        errors: list[str] = []
        for p in found.params:
            name, place = p["name"], p["in"]
            if place == "path":
                errors += _parameter_errors(where, "path", p, [found.values.get(name, "")])
            elif place == "query" and name in query:
                errors += _parameter_errors(where, "query", p, query[name])
            elif place == "query" and p.get("required"):
                errors.append(f"{where}: required query parameter {name!r} is missing")
        declared = {p["name"] for p in found.params if p["in"] == "query"}
        errors += [f"{where}: undeclared query parameter {k!r}" for k in query if k not in declared]
        schema = next((p.get("schema") for p in found.params if p["in"] == "body"), None)
        required = any(p["in"] == "body" and p.get("required") for p in found.params)
        if not body:
            return errors + ([f"{where}: the body is required"] if required else [])
        if schema is None:
            return [*errors, f"{where}: takes no body"]
        consumes = found.op.get("consumes") or self.document.get("consumes") or []
        media = (content_type or "").split(";")[0].strip().lower()
        if consumes and media not in consumes:
            errors.append(f"{where}: content type {media!r} is not one of {consumes}")
        try:
            value = json.loads(body)
        except ValueError:
            return [*errors, f"{where}: the body is not JSON"]
        return errors + self.schema_errors(schema, value, f"{where} body")

    def response_errors(self, method: str, path: str, query: dict[str, list[str]], status: int,
                        value: Any) -> list[str]:
        """A fake's own answer against the operation's response for `status`."""
        found = self.operation(method, path, query)
        if found is None:
            return []
        where = f"{method} {found.template} answer {status}"
        responses = found.op.get("responses", {})
        response = self.resolve(responses.get(str(status), responses.get("default")))
        if response is None:
            return [f"{where}: status {status} is not a documented answer"]
        schema = response.get("schema")
        if schema is None or value is None or isinstance(value, bytes):
            return []
        return self.schema_errors(schema, value, where)

    def schema_errors(self, schema: dict[str, Any], value: Any, where: str) -> list[str]:
        """`value` against a schema of the description (its `$ref`s point into it)."""
        rooted = json.loads(json.dumps(schema).replace('"#/', f'"{self._uri}#/'))
        validator = jsonschema.Draft4Validator(rooted, registry=self._registry)
        errors = [f"{where}: {'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
                  for e in validator.iter_errors(value)]
        return errors + self._undeclared(schema, value, where)

    def _undeclared(self, schema: Any, value: Any, where: str) -> list[str]:
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return []
        if isinstance(value, list):
            items = schema.get("items")
            return [e for i, v in enumerate(value) for e in self._undeclared(items, v, f"{where}[{i}]")]
        if not isinstance(value, dict):
            return []
        errors: list[str] = []
        subtype = self._subtype(schema, value)
        if subtype is not None:
            name, schema = subtype
            rooted = {"$ref": f"{self._uri}#/definitions/{name}"}
            errors += [f"{where} ({name}): {'/'.join(str(p) for p in e.absolute_path) or '(root)'}"
                       f": {e.message}" for e in jsonschema.Draft4Validator(
                           rooted, registry=self._registry).iter_errors(value)]
        props, is_map = self._properties(schema)
        if is_map or not props:
            return errors
        if not (schema.get("additionalProperties") is False and "allOf" not in schema):
            # (where the schema says so itself, jsonschema has said it already)
            errors += [f"{where}: undeclared key {k!r}" for k in value if k not in props]
        for key, sub in value.items():
            if key in props:
                errors += self._undeclared(props[key], sub, f"{where}.{key}")
        return errors

    def _properties(self, schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Every property `schema` declares through its `allOf`s, and whether it is a map."""
        props: dict[str, Any] = {}
        is_map = isinstance(schema.get("additionalProperties"), dict)
        for branch in schema.get("allOf", []):
            more, branch_map = self._properties(self.resolve(branch))
            props.update(more)
            is_map = is_map or branch_map
        props.update(schema.get("properties", {}))
        return props, is_map

    def _discriminator(self, schema: dict[str, Any]) -> str | None:
        if isinstance(schema.get("discriminator"), str):
            return str(schema["discriminator"])
        for branch in schema.get("allOf", []):
            found = self._discriminator(self.resolve(branch))
            if found:
                return found
        return None

    def _subtype(self, schema: dict[str, Any], value: dict[str, Any]
                 ) -> tuple[str, dict[str, Any]] | None:
        key = self._discriminator(schema)
        named = value.get(key) if key else None
        definitions = self.document.get("definitions", {})
        if (isinstance(named, str) and named in definitions and definitions[named] is not schema
                and self._derives(definitions[named], schema)):
            return named, definitions[named]
        return None

    def _derives(self, sub: dict[str, Any], base: dict[str, Any]) -> bool:
        return any(branch is base or self._derives(branch, base)
                   for branch in map(self.resolve, sub.get("allOf", [])))


def swagger(path: Path, name: str) -> Swagger:
    """The description kept at `path` (JSON), read once per session."""
    return _swagger(str(path), name)


@cache
def _swagger(path: str, name: str) -> Swagger:
    return Swagger(json.loads(Path(path).read_text()), name)


def _group(name: str) -> str:
    return "p_" + "".join(c if c.isalnum() else f"_{ord(c)}_" for c in name)


def _name(group: str) -> str:
    return re.sub(r"_(\d+)_", lambda m: chr(int(m.group(1))), group[2:])


def _parameter_errors(where: str, place: str, p: dict[str, Any], values: list[str]) -> list[str]:
    kind, name = p.get("type", "string"), p["name"]
    if kind == "array":
        split = {"csv": ",", "ssv": " ", "tsv": "\t", "pipes": "|"}.get(
            p.get("collectionFormat", "csv"))
        values = [v for value in values for v in (value.split(split) if split else [value])]
        kind, p = p.get("items", {}).get("type", "string"), p.get("items", {})
    errors = []
    for value in values:
        if not _typed(kind, value):
            errors.append(f"{where}: {place} parameter {name}={value!r} is not {kind}")
        elif "enum" in p and value not in [str(e) for e in p["enum"]]:
            errors.append(f"{where}: {place} parameter {name}={value!r} is not one of {p['enum']}")
    return errors


def _typed(kind: str, value: str) -> bool:
    if kind == "integer":
        return re.fullmatch(r"-?\d+", value) is not None
    if kind == "number":
        return re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", value) is not None
    if kind == "boolean":
        return value in ("true", "false")
    return True


def fix_holds(document: Any, fix: dict[str, Any]) -> bool:
    """Whether one fix of a subset's `*fixes.json` (see `scripts/cut-swagger-subset.py`) is in
    `document`: what it adds or replaces is there, what it removes is not."""
    *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in fix["path"][1:].split("/")]
    for part in parents:
        document = document[int(part)] if isinstance(document, list) else document[part]
    if fix["op"] == "remove":
        return last not in document
    return bool(document.get(last) == fix["value"])
