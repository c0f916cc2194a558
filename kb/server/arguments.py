"""The arguments of the ``knowledge_search`` and ``knowledge_ingest`` tools: schemas and checks.

``INPUT_SCHEMA`` and ``INGEST_INPUT_SCHEMA`` are the JSON Schemas a host sees (``kb
tool-schema``, MCP's ``inputSchema``, the OpenAPI request bodies); ``parse_search_arguments`` and
``parse_ingest_arguments`` hold a call to them, with one line naming the argument at fault.
Values are checked once, where they are defined: the JSON types here, ranges, source types and
dates by ``kb.config.SearchOptions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kb.config import (
    MAX_QUERY_CHARS,
    SOURCE_TYPES,
    TOP_K,
    TOP_K_MAX,
    SearchOptions,
    check_query_length,
)
from kb.retrieve.pipeline import well_formed
from kb.server.request_json import json_type
from kb.store.textindex import NO_SEARCHABLE_WORDS, has_search_text
from kb.types import source_type_named

MAX_FILTER_VALUES = 50  # per filter list (sources, source_types, tags)
MAX_INGEST_PATHS = 100  # per knowledge_ingest call

_STRING_LIST = {"type": "array", "items": {"type": "string", "minLength": 1},
                "maxItems": MAX_FILTER_VALUES}
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
                  "description": "The question or keywords to search for, in any language."},
        # no JSON Schema "default": a host that fills in defaults would always send it, and
        # a top_k sent asks for exactly that many references
        "top_k": {"type": "integer", "minimum": 1, "maximum": TOP_K_MAX,
                  "description": f"Omit it to get only the passages that hold the answer (at "
                                 f"most {TOP_K}). Set it to get that many references (at most "
                                 f"{TOP_K_MAX}): the passing ones first, the rest flagged "
                                 "weak_evidence."},
        "sources": {**_STRING_LIST,
                    "description": "Only documents whose source (absolute file path or URI) "
                                   "equals one of these or lies under it, e.g. a folder path "
                                   "(/notes holds /notes/a.md, not /notes-private/b.md)."},
        "source_types": {"type": "array", "maxItems": MAX_FILTER_VALUES,
                         "items": {"type": "string", "enum": list(SOURCE_TYPES)},
                         "description": "Only documents of these types."},
        "tags": {**_STRING_LIST,
                 "description": "Only documents carrying at least one of these tags (Markdown "
                                "front matter `tags`), compared case-insensitively; a tag no "
                                "document carries matches nothing."},
        "created_after": {"type": "string", "format": "date-time",
                          "description": "Only documents created at or after this RFC 3339 "
                                         "time, e.g. 2024-01-31T00:00:00Z (a bare date means "
                                         "midnight UTC)."},
        "created_before": {"type": "string", "format": "date-time",
                           "description": "Only documents created before this RFC 3339 time."},
    },
    "required": ["query"],
    "additionalProperties": False,
}
INGEST_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "paths": {"type": "array", "minItems": 1, "maxItems": MAX_INGEST_PATHS,
                  "items": {"type": "string", "minLength": 1},
                  "description": "Files or folders (walked recursively) inside the ingest "
                                 "roots; relative paths are looked up under each root."},
    },
    "required": ["paths"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated ``knowledge_search`` call.

    Attributes:
        query: the query, stripped, non-empty.
        options: scope and size of the search.
    """

    query: str
    options: SearchOptions


def keyed_arguments(arguments: object, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``arguments`` as a JSON object whose names ``schema`` allows and requires.

    Raises:
        ValueError: not an object, an unknown argument, or a required one missing (null).
    """
    if not isinstance(arguments, Mapping):
        raise ValueError(f"arguments must be a JSON object, got {json_type(arguments)}")
    allowed = schema["properties"]
    unknown = sorted(str(k) for k in arguments if k not in allowed)
    if unknown:
        raise ValueError(f"unknown argument(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(allowed) or 'none'}")
    missing = [k for k in schema["required"] if arguments.get(k) is None]
    if missing:
        raise ValueError(f"missing required argument(s): {', '.join(missing)}")
    return arguments


def _string_list(value: object, name: str, limit: int) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{name} must be an array of non-empty strings")
    if len(value) > limit:
        raise ValueError(f"{name} holds {len(value)} values; at most {limit} are allowed")
    return tuple(dict.fromkeys(v.strip() for v in value))


def _instant(value: object, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} must be an RFC 3339 date-time string, got {_short(value)}")
    return value


def _short(value: object, max_chars: int = 40) -> str:
    """``repr(value)`` cut to ``max_chars`` (a 4,000-digit number stays one short line)."""
    shown = repr(value)
    return shown if len(shown) <= max_chars else f"{shown[:max_chars]}... ({len(shown):,} chars)"


def parse_search_arguments(arguments: object) -> SearchRequest:
    """Validate a ``knowledge_search`` call's arguments against ``INPUT_SCHEMA``.

    Args:
        arguments: the decoded JSON arguments.

    Returns:
        The query and the search options.

    Raises:
        ValueError: the arguments do not satisfy the schema (the message names the argument).
    """
    args = keyed_arguments(arguments, INPUT_SCHEMA)
    query = args["query"]
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    if not has_search_text(well_formed(query)):  # a lone surrogate is searched as U+FFFD
        raise ValueError(f"the query {NO_SEARCHABLE_WORDS}")
    check_query_length(query)
    top_k = args.get("top_k", TOP_K)
    if isinstance(top_k, float) and top_k.is_integer():
        top_k = int(top_k)  # JSON Schema: 5.0 is an integer
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= TOP_K_MAX:
        raise ValueError(f"top_k must be an integer from 1 to {TOP_K_MAX}, got {_short(top_k)}")
    sources = _string_list(args.get("sources"), "sources", MAX_FILTER_VALUES)
    types = tuple(dict.fromkeys(source_type_named(t) for t in _string_list(
        args.get("source_types"), "source_types", MAX_FILTER_VALUES)))
    tags = _string_list(args.get("tags"), "tags", MAX_FILTER_VALUES)
    # a top_k the caller set asks for that many references (the rest flagged weak)
    options = SearchOptions(top_k=top_k, fill="top_k" in args, sources=sources,
                            source_types=types, tags=tags,
                            created_after=_instant(args.get("created_after"), "created_after"),
                            created_before=_instant(args.get("created_before"),
                                                    "created_before"))
    return SearchRequest(query.strip(), options)


def parse_ingest_arguments(arguments: object) -> tuple[str, ...]:
    """Validate a ``knowledge_ingest`` call's arguments; return its paths.

    Raises:
        ValueError: the arguments do not satisfy ``INGEST_INPUT_SCHEMA``.
    """
    args = keyed_arguments(arguments, INGEST_INPUT_SCHEMA)
    paths = _string_list(args["paths"], "paths", MAX_INGEST_PATHS)
    if not paths:
        raise ValueError("paths must name at least one file or folder")
    return paths


__all__ = ["INGEST_INPUT_SCHEMA", "INPUT_SCHEMA", "MAX_FILTER_VALUES", "MAX_INGEST_PATHS",
           "SearchRequest", "parse_ingest_arguments", "parse_search_arguments"]
