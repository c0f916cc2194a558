"""Extract: turn one file into text with structure (headings, pages).

``extract(path)`` picks the extractor by file suffix; every failure is an ``ExtractError``
subclass carrying the path and a short reason, so a bad file fails alone in a batch.
A returned document always has at least one block, and no block is blank or holds NUL.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kb.errors import UnsupportedTypeError
from kb.ingest.extract.docx import extract_docx
from kb.ingest.extract.html import extract_html
from kb.ingest.extract.pdf import extract_pdf
from kb.ingest.extract.text import extract_markdown, extract_text
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

__all__ = ["SUPPORTED_SUFFIXES", "extract"]


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
    extractor = EXTRACTORS.get(path.suffix.lower())
    if extractor is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        kind = f"'{path.suffix}' files" if path.suffix else "files without a suffix"
        raise UnsupportedTypeError(path, f"no extractor for {kind} (supported: {supported})")
    return extractor(path)
