r"""Paths and titles printed one to a line, whatever bytes their names hold.

A file name may hold a newline, a tab or a terminal escape (``$'new\nline.md'``): printed
raw, it splits one row of ``kb docs`` or an ingest report into two, or drives the terminal.
Such characters are shown as Python escapes (``\n``, ``\x1b``); every printable character,
Chinese included, is left as it is.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(?:([ntr])|x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))")
_LETTERS = {"n": "\n", "t": "\t", "r": "\r"}


def shown(text: str) -> str:
    r"""``text`` with each non-printable character as its Python escape (``\n``, ``\t``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def unshown(text: str) -> str:
    r"""The name ``shown`` printed as ``text``: its escapes (``\n``, ``\x1b``) made characters.

    A name pasted from ``kb docs`` output back into ``kb rm``. Only the escapes ``shown``
    writes are read, and only where they stand for a non-printable character; a name that holds
    a real backslash followed by ``n`` is found by trying the text as given first.
    """
    def character(match: re.Match[str]) -> str:
        letter, *codes = match.groups()
        if letter:
            return _LETTERS[letter]
        code = int(next(c for c in codes if c), 16)
        if code == 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:  # no name holds these
            return match.group(0)
        char = chr(code)
        return match.group(0) if char.isprintable() else char
    return _ESCAPE.sub(character, text)


def spellings(text: str) -> tuple[str, ...]:
    """``text`` as given, then as ``unshown`` reads it when that differs: the names to try."""
    return tuple(dict.fromkeys((text, unshown(text))))


__all__ = ["shown", "spellings", "unshown"]
