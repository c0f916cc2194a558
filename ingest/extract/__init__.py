"""Extract: turn one file into text with structure (headings, pages).

``extract(path)`` picks the extractor by file suffix (a web page saved as ``.txt`` or ``.md``
is read as HTML: ``read_as``); every failure is an ``ExtractError``
subclass carrying the path and a short reason, so a bad file fails alone in a batch.
A returned document always has at least one block, and no block is blank or holds NUL.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

from kb.errors import UnsupportedTypeError
from kb.ingest.extract.common import BOMS
from kb.ingest.extract.docx import extract_docx
from kb.ingest.extract.html import extract_html
from kb.ingest.extract.pdf import extract_pdf
from kb.ingest.extract.text import extract_markdown, extract_text
from kb.ingest.extract.utf16 import utf16_without_bom
from kb.types import ExtractedDocument

EXTRACTORS: dict[str, Callable[[Path], ExtractedDocument]] = {
    ".txt": extract_text,
    ".md": extract_markdown,
    ".markdown": extract_markdown,
    ".html": extract_html,
    ".htm": extract_html,
    ".pdf": extract_pdf,
    ".docx": extract_docx,
}
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(EXTRACTORS)
# a web page saved under a text suffix opens as HTML does (``_opens_html``)
_HTML_START = re.compile(rb"<!doctype\s+html|<html[\s>]", re.I)
_SNIFF_BYTES = 4096  # a prolog and comments may come first: "<!-- saved from url=... -->"

__all__ = ["SUPPORTED_SUFFIXES", "extract", "read_as"]


def read_as(path: Path) -> str:
    """The suffix whose extractor reads ``path``: its own (lower case), or ``.html``.

    ``.html`` for a ``.txt`` or Markdown file whose first bytes open an HTML document
    (``<!DOCTYPE html``, ``<html>``): a saved web page read as text would index its markup
    and scripts. A file that cannot be read keeps its own suffix (its extractor says why).
    """
    suffix = path.suffix.lower()
    if suffix not in (".txt", ".md", ".markdown"):
        return suffix
    try:
        with path.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return suffix
    return ".html" if _opens_html(_as_utf8(head)) else suffix


def _as_utf8(head: bytes) -> bytes:
    """``head`` re-encoded as UTF-8 when a byte-order mark (``BOMS``) or its NULs say UTF-16.

    Notepad's "Unicode" is UTF-16: a web page saved so was indexed with its markup.
    """
    bom, encoding = next(((b, e) for b, e in BOMS if head.startswith(b)),
                         (b"", utf16_without_bom(head)))
    if encoding is None:
        return head
    return head[len(bom):].decode(encoding, errors="ignore").encode("utf-8")


def _opens_html(head: bytes) -> bool:
    """Whether ``head`` opens an HTML document.

    After a byte-order mark, blanks, an XML prolog and comments, each skipped by a search
    for its end (a pattern over many comments backtracked for seconds).
    """
    at = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    while True:
        while at < len(head) and head[at:at + 1].isspace():
            at += 1
        for opening, closing in ((b"<?xml", b"?>"), (b"<!--", b"-->")):
            if head.startswith(opening, at):
                end = head.find(closing, at + len(opening))
                if end < 0:
                    return False
                at = end + len(closing)
                break
        else:
            return _HTML_START.match(head, at) is not None


def extract(path: Path) -> ExtractedDocument:
    """Extract the text of one file, choosing the extractor by its lower-case suffix.

    Args:
        path: the file to read.

    Returns:
        The document's title, blocks (at least one) and warnings.

    Raises:
        UnsupportedTypeError: no extractor handles the suffix.
        EncryptedError: the document needs a user password.
        CorruptError: the file is unreadable or malformed.
        EmptyDocumentError: the file holds no extractable text.

    """
    path = Path(path)
    suffix = read_as(path)
    extractor = EXTRACTORS.get(suffix)
    if extractor is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        kind = f"'{path.suffix}' files" if path.suffix else "files without a suffix"
        raise UnsupportedTypeError(path, f"no extractor for {kind} (supported: {supported})")
    doc = extractor(path)
    if suffix == path.suffix.lower():
        return doc
    return dataclasses.replace(doc, warnings=(
        f"an HTML page in a {path.suffix} file: read as HTML (its main content, no markup); "
        "rename it to .html to say so", *doc.warnings))
