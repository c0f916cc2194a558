"""JSON read out of a model's free-text reply: tolerant of prose, code fences and wrappers.

Models asked for "JSON only" still write ``Sure! [3, 1]``, fence it in ```` ```json ````, wrap
it in an object, or mention ``passage [1]`` before the answer. Every JSON value that starts at
a ``[`` (or ``{``) anywhere in the reply is decoded, nested ones included, and the *longest*
one (in characters) wins; a caller that knows how many items it wants (one grade or verdict per
passage) gets the longest array of that many, so a bracketed mention such as ``[1]`` in the
prose never hides the answer. Used by the LLM reranker, query expansion and the
evaluation judges.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

_DECODER = json.JSONDecoder()


def _values(reply: str, opener: str) -> Iterator[tuple[int, object]]:
    """(length in characters, value) of each JSON value starting at an ``opener``."""
    start = reply.find(opener)
    while start >= 0:
        try:
            value, end = _DECODER.raw_decode(reply, start)
        except json.JSONDecodeError:
            pass
        else:
            yield end - start, value
        start = reply.find(opener, start + 1)


def json_arrays(reply: str) -> list[list[object]]:
    """Every JSON array in ``reply``, nested ones included, longest (in characters) first.

    Arrays of equal length keep their order in the reply. Empty when there is none.
    """
    found: list[tuple[int, list[object]]] = []
    for length, value in _values(reply, "["):
        if isinstance(value, list):
            found.append((length, value))
    found.sort(key=lambda item: -item[0])
    return [value for _, value in found]


def json_array(reply: str, *, length: int | None = None, replier: str = "the model"
               ) -> list[object]:
    """The longest JSON array in ``reply`` (prose, code fences or an object around it).

    Args:
        reply: the model's reply as received.
        length: the number of items expected (e.g. one verdict per statement): the longest
            array of that many items wins if there is one, else the longest of any length
            (the caller's length check then reports the mismatch).
        replier: who replied, for the error message (e.g. "the judge").

    Raises:
        ValueError: the reply holds no JSON array; the message quotes its start.
    """
    arrays = json_arrays(reply)
    if not arrays:
        raise ValueError(f"{replier} replied without a JSON array: {reply[:120]!r}")
    return next((a for a in arrays if len(a) == length), arrays[0])


def json_object(reply: str) -> dict[str, object] | None:
    """The longest JSON object in ``reply``, or ``None`` when it holds none."""
    best: dict[str, object] | None = None
    best_len = -1
    for length, value in _values(reply, "{"):
        if isinstance(value, dict) and length > best_len:
            best, best_len = value, length
    return best
