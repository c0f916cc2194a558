"""JSON data and JSON Schema from frozen dataclasses: each shape is written once, as a dataclass.

``to_json`` turns a dataclass into JSON-ready data (nested dataclasses as objects, tuples as
arrays, datetimes as ISO 8601 strings); ``json_schema`` gives the JSON Schema (2020-12, the
dialect of OpenAPI 3.1) of the same dataclass, read from its type hints, with each property's
description taken from the class docstring's ``Attributes:`` section. A nested dataclass becomes
a ``$ref`` to ``#/components/schemas/NAME`` (its class name without a ``JSON`` suffix) and its
schema is added to ``defs``. Every field is required: ``to_json`` always writes every field.

Types understood: ``str``, ``int``, ``float``, ``bool``, ``None``, ``datetime``, ``Literal``,
unions, ``tuple[X, ...]``, ``list[X]``, ``dict[str, X]``, ``Any`` and dataclasses.
"""

from __future__ import annotations

import dataclasses
import re
import types
from datetime import datetime
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

REF_PREFIX = "#/components/schemas/"  # OpenAPI's home for named schemas
_ATTRIBUTE = re.compile(r"^(\s+)(\w+): (.*)$")


def to_json(obj: Any) -> Any:
    """``obj`` as JSON-ready data: dataclasses as objects, tuples as lists, times as ISO 8601."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, list | tuple):
        return [to_json(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, datetime):
        return obj.isoformat()
    return obj


def schema_name(cls: type) -> str:
    """The name of ``cls``'s schema under ``#/components/schemas``."""
    return cls.__name__.removesuffix("JSON")


def attribute_docs(cls: type) -> dict[str, str]:
    """The ``Attributes:`` section of ``cls``'s docstring: field name -> one-line description."""
    lines = (cls.__doc__ or "").splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "Attributes:"), None)
    if start is None:
        return {}
    docs: dict[str, str] = {}
    indent: int | None = None
    name = ""
    for line in lines[start + 1:]:
        match = _ATTRIBUTE.match(line)
        depth = len(line) - len(line.lstrip())
        if match and (indent is None or depth == indent):
            indent, name = depth, match[2]
            docs[name] = match[3].strip()
        elif line.strip() and indent is not None and depth > indent:
            docs[name] += " " + line.strip()
        elif line.strip():
            break
    return docs


def json_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of the dataclass ``cls``; nested dataclasses are added to ``defs``.

    Args:
        cls: a dataclass.
        defs: named schemas, filled in place (``schema_name`` -> schema), ``cls``'s included.

    Returns:
        A ``$ref`` to ``cls``'s schema in ``defs``.

    Raises:
        TypeError: ``cls`` is not a dataclass, or a field's type is not understood.
    """
    if not (dataclasses.is_dataclass(cls) and isinstance(cls, type)):
        raise TypeError(f"{cls!r} is not a dataclass")
    name = schema_name(cls)
    if name not in defs:
        defs[name] = {}  # a placeholder first: a recursive shape refers to itself
        hints = get_type_hints(cls)
        docs = attribute_docs(cls)
        properties: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            prop = _type_schema(hints[f.name], defs)
            if f.name in docs:
                prop = {**prop, "description": docs[f.name]}
            properties[f.name] = prop
        summary = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else name
        defs[name] = {"type": "object", "description": summary, "properties": properties,
                      "required": list(properties), "additionalProperties": False}
    return {"$ref": REF_PREFIX + name}


def _type_schema(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin, args = get_origin(hint), get_args(hint)
    simple = {str: "string", int: "integer", float: "number", bool: "boolean",
              type(None): "null"}
    if hint in simple:
        return {"type": simple[hint]}
    if hint is datetime:
        return {"type": "string", "format": "date-time"}
    if hint is Any:
        return {}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (types.UnionType, Union):
        options = [_type_schema(a, defs) for a in args]
        kinds = [o.get("type") for o in options]
        if all(isinstance(k, str) and len(o) == 1 for k, o in zip(kinds, options, strict=True)):
            return {"type": kinds}
        return {"anyOf": options}
    if origin in (tuple, list) and args and (origin is list or args[-1] is Ellipsis):
        return {"type": "array", "items": _type_schema(args[0], defs)}
    if origin is dict and args and args[0] is str:
        return {"type": "object", "additionalProperties": _type_schema(args[1], defs)}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return json_schema(hint, defs)
    raise TypeError(f"no JSON Schema for the type {hint!r}")


__all__ = ["REF_PREFIX", "attribute_docs", "json_schema", "schema_name", "to_json"]
