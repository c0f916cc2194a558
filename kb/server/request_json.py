"""Request bodies as JSON data, refusing what Python's decoder would fail on later.

Python's ``json`` accepts ``NaN`` and ``Infinity`` (not JSON, RFC 8259), turns ``1e999`` into
an infinite float, raises ``RecursionError`` on nesting deeper than the interpreter's stack, and
``ValueError`` on an integer past ``sys.get_int_max_str_digits()`` (4,300) digits. Every one of
these is the caller's mistake: ``decode_json`` turns them into one ``ValueError`` line, which
``kb serve`` answers with 400. ``encode_json`` writes answers, never failing on a string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (RFC 8259)")


def json_type(value: object) -> str:
    """The JSON name of ``value``'s type (``null``, ``array``, ...), else its Python name."""
    for kinds, name in ((type(None), "null"), (bool, "boolean"), (int | float, "number"),
                        (str, "string"), (list | tuple, "array"), (Mapping, "object")):
        if isinstance(value, kinds):
            return name
    return type(value).__name__


def decode_json(body: bytes, *, example: str = '{"query": "..."}') -> Any:
    """A request body as JSON data.

    Args:
        body: the request body.
        example: the JSON object the endpoint expects, for the message of an empty body.

    Raises:
        ValueError: the body is empty or whitespace only ("the request body is empty: send
            a JSON object, e.g. ``example``"), is not UTF-8 JSON, holds ``NaN``/``Infinity``
            or a number Python will not convert (over ``sys.get_int_max_str_digits()``
            digits, or out of the float range), or nests deeper than the decoder's recursion
            limit. The message is one short line; but for an empty body, it starts "the body
            is not JSON we accept".
    """
    if not body.strip():
        raise ValueError(f"the request body is empty: send a JSON object, e.g. {example} (see "
                         "/openapi.json)")
    def finite(text: str) -> float:
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise ValueError(f"{text[:20]} is out of the range of a JSON number here")
        return value

    try:
        return json.loads(body, parse_constant=_no_constant, parse_float=finite)
    except RecursionError:
        problem = "it nests too deeply"
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, the int digit limit
        problem = str(exc).splitlines()[0][:200]
    raise ValueError(f"the body is not JSON we accept: {problem}")


def encode_json(data: Any) -> bytes:
    r"""``data`` as compact UTF-8 JSON (sorted keys); never fails on a string's content.

    Lone surrogates (from a JSON ``"\ud800"`` escape, or an undecodable file name) become
    U+FFFD instead of raising ``UnicodeEncodeError``.
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()
