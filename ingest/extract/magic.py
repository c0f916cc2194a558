"""What a file's bytes are, by their magic numbers (``filetype``, MIT): reasons, never guesses.

A file that is no text under a text suffix fails with what it is ("not text: the bytes are a
PDF file; rename it to .pdf to index it"), and a PDF or a DOCX under any other suffix too.
"""

from __future__ import annotations

import re

import filetype

# binary formats kb reads under their own suffix (``binary_kind``)
_READ_AS = {"pdf": "a PDF file", "docx": "a Word (DOCX) file"}


def binary_kind(data: bytes) -> str:
    """What binary bytes are, when their magic number says so (``filetype``), as a reason.

    ``"not text: the bytes are a PDF file; rename it to .pdf to index it"`` for a PDF saved
    as ``.txt`` (and a DOCX); another known format is named with no such advice (kb reads no
    image or archive); ``""`` when the kind is unknown.
    """
    kind = filetype.guess(data[:8192])
    return "" if kind is None else _reason(kind)


def _reason(kind: filetype.Type) -> str:
    """``binary_kind``'s reason for a kind ``filetype`` found."""
    if kind.extension in _READ_AS:
        return (f"not text: the bytes are {_READ_AS[kind.extension]}; rename it to "
                f".{kind.extension} to index it")
    return f"not text: the bytes are {kind.mime} (.{kind.extension}), a type kb does not read"


# a PDF file: its header's version, then an object within the first 64 KiB (a note opening with
# "%PDF-1.4 is what our printer wants" has no "1 0 obj")
_PDF_BODY = re.compile(rb"%PDF-\d\.\d.*?\d+\s+\d+\s+obj\b", re.DOTALL)


def readable_elsewhere(data: bytes) -> str:
    """``binary_kind``'s reason for the bytes of a format kb reads under its own suffix.

    A PDF or a DOCX renamed ``.txt``, ``.md`` or ``.html`` is mostly ASCII (a PDF's objects)
    or a ZIP archive: a trial's PDF renamed ``.html`` was indexed as its raw object syntax.
    "" for anything else, text included (only these two magic numbers are trusted: a text
    may open with the two letters a bitmap's header does), and a PDF's only with a PDF
    object after it: a note may open with "%PDF" as prose.
    """
    kind = filetype.guess(data[:8192])
    if kind is None or kind.extension not in _READ_AS:
        return ""
    if kind.extension == "pdf" and not _PDF_BODY.match(data[:65536]):
        return ""  # "%PDF export settings are in the File menu": prose
    return _reason(kind)
