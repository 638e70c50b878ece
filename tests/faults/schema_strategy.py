"""Documents drawn from a JSON Schema, as a hypothesis strategy: the keywords the schemas in
bot/schemas use for shapes and values ($ref, enum, const, type, properties, required,
additionalProperties with propertyNames, items, prefixItems, anyOf, oneOf, string patterns
and lengths, number and integer bounds). The conditional keywords (if/then, not, allOf) are
not followed: a drawn document may break one of them, which is what a hostile input does."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

Schema = dict[str, Any]


# By the schema object's identity; the object is kept, so that its id is never reused.
_BUILT: dict[int, tuple[Schema, st.SearchStrategy[Any]]] = {}


def documents(schema: Schema, root: Schema | None = None) -> st.SearchStrategy[Any]:
    """The strategy of `schema` (a part of `root`), built once per schema object: building
    compiles every pattern, which costs more than drawing."""
    if id(schema) not in _BUILT:
        _BUILT[id(schema)] = schema, _build(schema, root if root is not None else schema)
    return _BUILT[id(schema)][1]


def _build(schema: Schema, root: Schema) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return st.deferred(lambda: documents(target, root))
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_build(_merged(schema, alt, key), root)
                              for alt in schema[key]])
    kinds = schema.get("type", "object" if "properties" in schema else "string")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return st.one_of([_of_type(kind, schema, root) for kind in kinds])


def _merged(schema: Schema, alternative: Schema, key: str) -> Schema:
    return {**{k: v for k, v in schema.items() if k != key}, **alternative}


def _of_type(kind: str, schema: Schema, root: Schema) -> st.SearchStrategy[Any]:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        low = schema.get("exclusiveMinimum", schema.get("minimum"))
        floats = st.floats(low, 10**6, allow_nan=False, exclude_min="exclusiveMinimum" in schema)
        ints = st.integers(math.floor(low) + 1 if low is not None else None, 10**6)
        return st.one_of(ints, floats)
    if kind == "string":
        return _strings(schema)
    if kind == "array":
        return _arrays(schema, root)
    return _objects(schema, root)


def _strings(schema: Schema) -> st.SearchStrategy[str]:
    low, high = schema.get("minLength", 0), schema.get("maxLength", 40)
    text = st.from_regex(schema["pattern"]) if "pattern" in schema else st.text(max_size=high)
    return text.filter(lambda s: low <= len(s) <= high)


def _arrays(schema: Schema, root: Schema) -> st.SearchStrategy[list[Any]]:
    items = documents(schema.get("items", {}), root)
    return st.lists(items, min_size=schema.get("minItems", 0), max_size=3)


def _objects(schema: Schema, root: Schema) -> st.SearchStrategy[dict[str, Any]]:
    properties: dict[str, Schema] = schema.get("properties", {})
    required = [k for k in schema.get("required", ()) if k in properties]
    optional = {k: documents(v, root) for k, v in properties.items() if k not in required}
    fixed = st.fixed_dictionaries({k: documents(properties[k], root) for k in required},
                                  optional=optional)
    extra = schema.get("additionalProperties", False)
    if not isinstance(extra, dict):
        return fixed
    names = schema.get("propertyNames", {}).get("pattern", r"\A[a-z][a-z-]{0,8}\Z")
    others = st.dictionaries(st.from_regex(names, fullmatch=True).filter(
        lambda k: k not in properties), documents(extra, root), max_size=2)
    return st.tuples(fixed, others).map(lambda pair: {**pair[1], **pair[0]})
