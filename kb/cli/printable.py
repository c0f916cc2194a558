r"""Paths and titles printed one to a line, whatever bytes their names hold.

A file name may hold a newline, a tab or a terminal escape (``$'new\nline.md'``): printed
raw, it splits one row of ``kb docs`` or an ingest report into two, or drives the terminal.
Such characters are shown as Python escapes (``\n``, ``\x1b``); every printable character,
Chinese included, is left as it is.
"""

from __future__ import annotations


def shown(text: str) -> str:
    r"""``text`` with each non-printable character as its Python escape (``\n``, ``\t``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


__all__ = ["shown"]
