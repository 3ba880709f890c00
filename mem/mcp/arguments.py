"""Checks a tool call's arguments against the tool's input schema. Pure.

The schemas use a small part of JSON Schema (an object of named arguments, each a type or
a list of types, an enum, an array of strings), so checking them takes a few lines here
rather than a general validator, and each problem is said in the tool's own terms.
"""

from __future__ import annotations

import json
from typing import Any

_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
}


def _fits(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # JSON's true is not a number, whatever Python thinks
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, int | float)
    if kind == "array":
        return isinstance(value, list)
    raise AssertionError(f"schema type {kind} is not handled")


def _problem(value: Any, schema: dict[str, Any]) -> str | None:
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    shown = json.dumps(value, ensure_ascii=False)
    if not any(_fits(value, kind) for kind in kinds):
        names = [_NAMES[kind] for kind in kinds]
        either = " or ".join(filter(None, [", ".join(names[:-1]), names[-1]]))
        return f"must be {either}, not {shown}"
    if "enum" in schema and value not in schema["enum"]:
        return f"must be one of {', '.join(schema['enum'])}, not {shown}"
    if "items" in schema and not all(_fits(item, schema["items"]["type"]) for item in value):
        return f"must be an array of {schema['items']['type']}s, not {shown}"
    return None


def problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """What is wrong with the arguments, or None when they fit the schema."""
    properties: dict[str, Any] = schema["properties"]
    for name in schema["required"]:
        if name not in arguments:
            return f"the argument {name} is required"
    for name, value in arguments.items():
        if name not in properties:
            return f"unknown argument {name} (expected: {', '.join(properties)})"
        found = _problem(value, properties[name])
        if found is not None:
            return f"{name} {found}"
    return None
