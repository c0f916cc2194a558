"""PDF: a block per page with a text layer (per section, with an outline); scans reported.

pypdf opens the file (encryption, metadata, pages, images); each page's text comes from
pdfminer.six's layout analysis, which orders text boxes by position, so a multi-column page
is read column by column whatever order its content stream draws the lines in (pypdf reads
stream order: a two-column page drawn row by row came out across the gutter). The choice was
measured (``bench/pdf_reading_order.py``, table in ``bench/README.md``). A page pdfminer cannot
read falls back to pypdf's text. pdfplumber drives pdfminer and finds each page's ruled tables
in the same pass; their rows are written as lines of cells (``kb.ingest.extract.pdf_tables``).

Images are located (``ImageRef``: object number, page, pixel size) but not decoded here;
``load_pdf_images`` decodes them when a vision model is to describe them.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.layout import LTChar, LTContainer, LTTextBox
from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError
from pypdf.generic import IndirectObject, StreamObject

from kb.errors import CorruptError, EncryptedError, ExtractError
from kb.ingest.extract.common import (
    build_document,
    clean_text,
    images_not_indexed,
    one_line,
    placeholder_title,
    require_nonempty,
)
from kb.ingest.extract.magic import readable_elsewhere
from kb.ingest.extract.pdf_headings import in_sequence, numbered_headings
from kb.ingest.extract.pdf_hidden import strip_hidden_text
from kb.ingest.extract.pdf_lines import page_text
from kb.ingest.extract.pdf_outline import OutlineEntry, outline_entries, page_blocks, title_at
from kb.ingest.extract.pdf_tables import CID, PageTable, continued, page_tables
from kb.ingest.extract.quality import control_codes, unmapped
from kb.types import Block, ExtractedDocument, ImageRef

NO_TEXT_LAYER_REASON = "no text layer on any page (scanned PDF?)"
UNMAPPED_REASON = ("its fonts have no Unicode map (no ToUnicode): the text layer holds glyph "
                   "codes, not text; OCR it to index it (e.g. ocrmypdf --force-ocr)")
# Metadata titles that are really file names or placeholders ("Microsoft Word - a.doc").
_FILENAME_TITLE_RE = re.compile(
    r"\.(?:exe|docx?|rtf|odt|pdf|tex|dvi|ps|indd|qxd|pptx?|xlsx?|txt|html?)$", re.I
)
_MAX_TITLE_CHARS = 300
_MAX_XOBJECT_DEPTH = 8  # form XObjects nested deeper than this are not searched for images



def extract_pdf(path: Path) -> ExtractedDocument:
    """Extract a PDF's text layer: a block per page (``page`` is 1-based), cut per section.

    A PDF with an outline (bookmarks) has a block per section on each page, under the
    section's heading path (``kb.ingest.extract.pdf_outline``).

    Text is NFKC-normalised (ligatures such as "ﬁ" become "fi"). An encrypted file is opened
    with the empty user password when it only has an owner password. Pages without text are
    not emitted; a warning names them, and another counts the images left unindexed.

    Raises:
        EmptyDocumentError: the file is 0 bytes, no page has a text layer, or every page's
            text is glyph codes of fonts without a Unicode map (``kb.ingest.extract.quality``;
            such pages among readable ones are left out with a warning).
        EncryptedError: a user password is needed (or, on an install without the
            ``cryptography`` dependency, the file is AES-encrypted).
        CorruptError: the file is malformed: ``not a valid PDF file (REASON)``, the reason
            ``no %PDF header`` or pypdf's.

    """
    require_nonempty(path)
    data = b""
    try:
        with path.open("rb") as stream:
            data = stream.read()
        return _extract(path, PdfReader(io.BytesIO(data)), data)
    except ExtractError:
        raise
    except DependencyError as exc:  # AES on an install that lacks `cryptography`
        raise EncryptedError(path, "AES-encrypted; opening it needs the `cryptography` "
                             f"package (pip install cryptography): {exc}") from exc
    except OSError as exc:
        raise CorruptError(path, f"cannot read file: {exc.strerror or exc}") from exc
    except Exception as exc:  # pypdf raises many types on malformed files
        cut = "" if b"%%EOF" in data[-2048:] else "; the file looks cut short (no %%EOF at its end)"
        reason = _describe(exc) + cut if b"%PDF-" in data[:1024] else "no %PDF header" + (
            f": {elsewhere.removeprefix('not text: ')}" if (
                elsewhere := readable_elsewhere(data)) else "")
        raise CorruptError(path, f"not a valid PDF file ({reason})") from exc


def _extract(path: Path, reader: PdfReader, data: bytes) -> ExtractedDocument:
    _unlock(path, reader)
    laid_out = _layout_texts(data, len(reader.pages))
    blocks: list[Block] = []
    empty_pages: list[int] = []
    unmapped_pages: list[int] = []
    failed_pages: list[int] = []
    hidden_pages: list[int] = []
    first_failure = ""
    seen_images: set[tuple[str, int]] = set()
    images: list[ImageRef] = []
    outline = outline_entries(reader)
    detected = not outline  # none: its numbered headings, in sequence (pdf_headings)
    outline = outline or in_sequence([h for page in laid_out or () if page is not None
                                      for h in page[2]])
    heading_path: tuple[str, ...] = ()  # the outline's heading path in force
    for number, page in enumerate(reader.pages, start=1):
        found = _page_images(page, seen_images)
        hidden = strip_hidden_text(page)  # white on a blank page, or ~1-point text
        if hidden:
            hidden_pages.append(number)
        try:
            # pdfminer read the file as stored: a page with hidden text blanked is read by
            # pypdf from the blanked page instead (in content-stream order)
            laid = laid_out[number - 1] if laid_out and not hidden else None
            entry = laid[:2] if laid is not None else None
            if entry is None:  # pdfminer could not read this page: pypdf's stream order
                raw = page.extract_text() or ""
                entry = raw, control_codes(raw)
        except DependencyError:
            raise
        except Exception as exc:  # one broken content stream must not lose the other pages
            failed_pages.append(number)
            first_failure = first_failure or _describe(exc)
            continue
        raw, codes = entry
        text = clean_text(raw, nfkc=True)
        marks = [e for e in outline if e.page == number]
        if detected:  # a heading the text does not write (hidden text blanked) is none
            marks = [e for e in marks if not hidden and title_at(text, e.title) is not None]
        new_blocks, heading_path = ([], heading_path) if unmapped(codes, raw) else page_blocks(
            text, number, marks, heading_path)
        if new_blocks:
            blocks.extend(new_blocks)
        elif codes:
            unmapped_pages.append(number)
        elif damage := _damaged_stream(page):  # no scan: its content cannot be decoded
            failed_pages.append(number)
            first_failure = first_failure or damage
        else:
            empty_pages.append(number)
        # A page's images are described after its text (or in its place on a scanned page).
        images.extend(ImageRef(key=str(idnum), position=len(blocks), page=number,
                               width_px=width, height_px=height)
                      for idnum, width, height in found)
    failure = ""
    if failed_pages:
        failure = f"text extraction failed on page(s) {_ranges(failed_pages)}: {first_failure}"
        if not blocks:
            raise CorruptError(path, failure)
    warnings = [
        *([_no_text_warning(empty_pages)] if empty_pages else []),
        *([f"{_pages(unmapped_pages)}: fonts without a Unicode map (the text is glyph codes); "
           "not indexed"] if unmapped_pages else []),
        *([failure] if failure else []),
        *([images_not_indexed(len(images))] if images else []),
        *([f"hidden text not indexed on page(s) {_ranges(hidden_pages)} (white on a blank "
           "page, or under 2 pt)"] if hidden_pages else []),
    ]
    return build_document(
        path,
        title=_title(reader),
        blocks=blocks,
        source_type="pdf",
        warnings=warnings,
        created_at=_created_at(reader),
        empty_reason=UNMAPPED_REASON if unmapped_pages else NO_TEXT_LAYER_REASON,
        images=images,
    )


def _layout_texts(data: bytes, pages: int
                  ) -> list[tuple[str, int, list[OutlineEntry]] | None] | None:
    """Each page's text in pdfminer.six's layout order, its unmapped glyphs and headings.

    pdfplumber runs pdfminer's layout analysis (default ``LAParams``) and finds the page's
    ruled tables in the same pass (``kb.ingest.extract.pdf_tables``): a table is written as
    rows of cells where its first line was, its cells' lines left out of the text around it;
    a table continuing one of the page before gets its header (``continued``). A glyph
    without a Unicode mapping, which pdfminer writes "(cid:N)", is counted and dropped
    (it is no text; pypdf gives a control character, which ``clean_text`` drops).

    Returns:
        One ``(text, unmapped glyphs, numbered headings)`` per page (headings: for a PDF
        without an outline, ``kb.ingest.extract.pdf_headings``), ``None`` for a page
        pdfminer failed on;
        ``None`` as a whole when it cannot open the file or finds another number of pages
        than pypdf.
    """
    texts: list[tuple[str, int, list[OutlineEntry]] | None] = []
    last: PageTable | None = None  # the page before's last table, which one may continue
    try:
        with pdfplumber.open(io.BytesIO(data), password="", laparams={}) as pdf:
            for page in pdf.pages:
                try:
                    layout = page.layout
                    # Boxes in layout order; each ends with a newline, as pypdf's lines do.
                    boxes = [item for item in layout if isinstance(item, LTTextBox)]
                    tables = page_tables(page, layout)
                    if tables and last is not None:
                        tables[0] = continued(last, tables[0])
                    last = tables[-1] if tables else None
                    texts.append((page_text(boxes, tables), _unmapped_glyphs(layout),
                                  numbered_headings(boxes, len(texts) + 1, tables)))
                except Exception:  # one page pdfminer cannot lay out: pypdf reads it
                    texts.append(None)
                    last = None
                finally:
                    page.close()  # its layout and objects are not kept for the next page
    except Exception:  # the document as a whole: pypdf reads every page
        return None
    return texts if len(texts) == pages else None


def _unmapped_glyphs(item: Any) -> int:
    """The glyphs pdfminer wrote as "(cid:N)" (no Unicode mapping) inside a layout item."""
    if isinstance(item, LTChar):
        return int(bool(CID.fullmatch(item.get_text())))
    if isinstance(item, LTContainer):
        return sum(_unmapped_glyphs(child) for child in item)
    return 0


def _unlock(path: Path, reader: PdfReader) -> None:
    if not reader.is_encrypted:
        return
    result = reader.decrypt("")
    if result == PasswordType.NOT_DECRYPTED:
        raise EncryptedError(path, "encrypted with a user password")


def _pages(numbers: list[int]) -> str:
    return f"page {numbers[0]}" if len(numbers) == 1 else f"pages {_ranges(numbers)}"


def _no_text_warning(pages: list[int]) -> str:
    if len(pages) == 1:
        return f"page {pages[0]} has no text layer (scanned image?); not indexed"
    return f"pages {_ranges(pages)} have no text layer (scanned images?); not indexed"


def _ranges(numbers: list[int]) -> str:
    """Format page numbers compactly: ``[1, 2, 3, 5]`` -> ``"1-3, 5"``."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


_ImageXObject = tuple[int, int | None, int | None]  # (object number, width px, height px)


def _page_images(page: Any, seen: set[tuple[str, int]]) -> list[_ImageXObject]:
    """Image XObjects reachable from the page's resources, each object once per document."""
    try:
        return _xobject_images(page.get("/Resources"), seen, 0)
    except Exception:  # a broken resource dictionary must not fail the page
        return []


def _xobject_images(resources: Any, seen: set[tuple[str, int]],
                    depth: int) -> list[_ImageXObject]:
    if resources is None or depth > _MAX_XOBJECT_DEPTH:
        return []
    xobjects = resources.get_object().get("/XObject")
    if xobjects is None:
        return []
    found: list[_ImageXObject] = []
    for ref in xobjects.get_object().values():
        idnum = getattr(ref, "idnum", None)
        key = ("indirect", idnum) if idnum is not None else ("direct", id(ref))
        if key in seen:
            continue
        seen.add(key)
        obj = ref.get_object()
        subtype = obj.get("/Subtype")
        if subtype == "/Image" and idnum is not None:  # a stream is always an indirect object
            found.append((idnum, _pixels(obj, "/Width"), _pixels(obj, "/Height")))
        elif subtype == "/Form":
            found.extend(_xobject_images(obj.get("/Resources"), seen, depth + 1))
    return found


def _pixels(obj: Any, key: str) -> int | None:
    try:
        value = int(obj[key])
    except Exception:  # absent or not a number
        return None
    return value if value > 0 else None


def load_pdf_images(path: Path, keys: Sequence[str]) -> Iterator[tuple[str, Any, str]]:
    """Decode the image XObjects ``keys`` (``ImageRef.key`` values) of the PDF at ``path``.

    Needs Pillow (pypdf decodes images with it).

    Yields:
        ``(key, image, "")`` with a Pillow image, or ``(key, None, reason)`` when that image
        cannot be read or decoded; one per key, in order.

    Raises:
        OSError: the file cannot be read.
    """
    with path.open("rb") as stream:
        reader = PdfReader(stream)
        if reader.is_encrypted:
            reader.decrypt("")
        for key in keys:
            try:
                obj: Any = reader.get_object(int(key))
                if not isinstance(obj, StreamObject) or obj.get("/Subtype") != "/Image":
                    raise ValueError(f"object {key} is not an image")
                image = obj.decode_as_image()
                if image is None:
                    raise ValueError("pypdf cannot decode it")
                image.load()  # read the pixels while the file is open
            except Exception as exc:  # one undecodable image must not lose the others
                yield key, None, _describe(exc)
            else:
                yield key, image, ""


def _title(reader: PdfReader) -> str | None:
    try:
        raw = reader.metadata.title if reader.metadata else None
    except Exception:
        return None
    if not raw:
        return None
    title = one_line(clean_text(str(raw), nfkc=True))
    title = re.sub(r"^Microsoft (?:Word|PowerPoint) - ", "", title)
    if (
        len(title) > _MAX_TITLE_CHARS
        or not any(ch.isalpha() for ch in title)
        or _FILENAME_TITLE_RE.search(title)
        or placeholder_title(title)
    ):
        return None
    return title


def _created_at(reader: PdfReader) -> datetime | None:
    """Return /CreationDate, or ``None`` when absent or unparseable."""
    try:
        return reader.metadata.creation_date if reader.metadata else None
    except Exception:
        return None


def _describe(exc: BaseException) -> str:
    text = one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _damaged_stream(page: Any) -> str:
    """Why a page's content stream cannot be decoded (a corrupt filter's data), or ``""``.

    pdfminer reads such a page as empty, which was reported as a scanned page.
    """
    try:
        contents = page.get_contents()
    except DependencyError:
        raise
    except Exception as exc:  # pypdf's filters raise ValueError, zlib.error, PdfReadError ...
        return f"its content stream is damaged ({_describe(exc)})"
    raw = page.raw_get("/Contents") if "/Contents" in page else None
    if contents is None and isinstance(raw, IndirectObject):  # points where no object is
        return "its content stream is missing (the file is damaged)"
    if contents is not None and not contents.get_data():  # pypdf logs a bad deflate, no raise
        streams = raw.get_object() if raw is not None else []
        # the bytes as stored (pypdf keeps them in ``_data`` and has no public reader): some
        # stored, none decoded
        if any(getattr(s.get_object(), "_data", b"") for s in (
                streams if isinstance(streams, list) else [streams])):
            return "its content stream cannot be decoded (the file is damaged)"
    return ""  # (a direct null is a blank page, as no /Contents is)
