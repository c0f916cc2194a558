"""Helpers shared by the extractors: byte decoding, text cleaning, document assembly."""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import charset_normalizer
from charset_normalizer.models import CharsetMatch
from charset_normalizer.utils import is_multi_byte_encoding

from kb.errors import CorruptError, EmptyDocumentError
from kb.ingest.extract.cleaning import clean_text
from kb.ingest.extract.dates import METADATA_DATED, checked_metadata_date
from kb.ingest.extract.gb_text import gb_reading
from kb.ingest.extract.magic import binary_kind, readable_elsewhere
from kb.ingest.extract.utf16 import utf16_without_bom
from kb.types import Block, ExtractedDocument, ImageRef, SourceType

# Byte-order marks, longest first so UTF-32 is not mistaken for UTF-16.
BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Single-byte code pages by how common they are in legacy files (Western Windows first, as
# browsers default); used only to break near-ties in detection.
PREFERRED_SINGLE_BYTE = ("cp1252", "cp1251", "cp1250", "koi8_r", "iso8859_15", "iso8859_2")
# Mess-ratio slack (0..1) within which a more common code page beats a rarer best guess;
# 0.05 resolved every cp1252 sample of real web text we tried without breaking cp1251/koi8-r.
DETECT_CHAOS_TOLERANCE = 0.05
# Bytes that are not valid UTF-8 but whose non-ASCII characters are at least this share valid
# UTF-8 sequences are UTF-8 with stray bytes (a mixed file: a paragraph pasted from a cp1252
# one), decoded as UTF-8 with U+FFFD for the stray bytes instead of all of it as a legacy
# code page (mojibake). Legacy text scores near 0: a cp1252 letter is a lone high byte.
MIXED_UTF8_MIN_VALID = 0.8
# Share (0..1) of control bytes (not tab, newline, CR, form feed, escape) above which bytes no
# encoding decodes are binary, not text in mixed encodings (``looks_like_text``).
TEXT_MAX_CONTROL_SHARE = 0.005
_BINARY_CONTROLS = bytes([*range(1, 9), 11, *range(14, 27), *range(28, 32), 127])
# Share (0..1) of a file's characters that are U+FFFD above which ingest warns about the file.
REPLACED_WARN_SHARE = 0.001

# Declared labels decoded with their superset, as browsers do (WHATWG Encoding Standard):
# pages labelled gb2312 routinely contain GBK characters, latin-1 pages cp1252 quotes.
_DECLARED_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
}


def decode_bytes(data: bytes, *, declared: str | None = None) -> Decoded:
    """Decode text bytes, never silently into mojibake.

    The order is: a byte-order mark (UTF-8, UTF-16, UTF-32); strict UTF-8; UTF-8 with U+FFFD
    for stray bytes when the bytes are mostly UTF-8 (``mostly_utf8``); the ``declared``
    encoding (e.g. an HTML meta charset) when it decodes without error; then detection by
    charset-normalizer (legacy single- and multi-byte encodings such as cp1252 or GB18030);
    last, bytes none of these decodes that still look like text (``looks_like_text``: lines
    in several encodings) as UTF-8 with U+FFFD.
    (Mostly) valid UTF-8 wins over a declaration because pages are often re-saved as UTF-8
    while keeping a stale ``<meta charset>``. ``replaced_warning`` tells whether the text
    holds too many U+FFFD.

    Args:
        data: the raw file content.
        declared: an encoding name the file claims for itself, if any.

    Returns:
        The decoded text (BOM removed, newlines not yet normalised), the encoding used, and
        whether charset detection guessed it (``guessed_warning``).

    Raises:
        ValueError: no encoding decodes the bytes plausibly (binary content), or they are a
            PDF's or a DOCX's (``readable_elsewhere``).

    """
    if elsewhere := readable_elsewhere(data):
        raise ValueError(elsewhere)
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                return Decoded(data[len(bom) :].decode(encoding), encoding)
            except UnicodeDecodeError as exc:
                raise ValueError(f"starts with a {encoding} byte-order mark but {exc}") from exc
    if utf16 := utf16_without_bom(data):
        return Decoded(data.decode(utf16, errors="replace"), utf16, guessed=True)
    try:
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    if mostly_utf8(data):
        return Decoded(data.decode("utf-8", errors="replace"), "utf-8")
    if declared:
        try:
            name = codecs.lookup(declared).name
            name = _DECLARED_SUPERSETS.get(name, name)
            return Decoded(data.decode(name), name)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return Decoded(*_detect(data), guessed=True)
    except ValueError:
        if looks_like_text(data):  # lines in several encodings: keep what UTF-8 reads
            return Decoded(data.decode("utf-8", errors="replace"), "utf-8")
        raise


class Decoded(NamedTuple):
    """Decoded text bytes (``decode_bytes``).

    Attributes:
        text: the text, byte-order mark removed, newlines not yet normalised.
        encoding: the codec name used ("utf-8", "cp1252", "gb18030", ...).
        guessed: charset detection chose the encoding (no byte-order mark, not UTF-8, no
            usable declaration): the file is read, and ``guessed_warning`` says so.
    """

    text: str
    encoding: str
    guessed: bool = False


def guessed_warning(encoding: str) -> str:
    """The warning for a file read in an encoding guessed from its bytes.

    Single-byte code pages read any bytes, so a short or unusual text can be guessed wrongly
    (cp1252 for cp1250); the file is indexed either way, and the user is told how to be sure.
    """
    try:  # one spelling whoever guessed it: "utf-16-be", not also "utf_16_be"
        encoding = codecs.lookup(encoding).name
    except LookupError:
        pass
    return (f"not UTF-8: read as {encoding}, guessed from its bytes; if its words look wrong, "
            "save it as UTF-8 and ingest it again")


def mostly_utf8(data: bytes) -> bool:
    """Whether bytes that fail strict UTF-8 are UTF-8 with stray bytes (a mixed file).

    True when at least ``MIXED_UTF8_MIN_VALID`` of the non-ASCII characters UTF-8 decodes
    are valid sequences rather than U+FFFD.
    """
    text = data.decode("utf-8", errors="replace")
    non_ascii = len(text) - len(text.encode("ascii", errors="ignore"))
    replaced = text.count("\ufffd")
    return non_ascii > replaced and non_ascii - replaced >= MIXED_UTF8_MIN_VALID * non_ascii


def looks_like_text(data: bytes) -> bool:
    """Whether bytes no encoding decodes are still text: no NUL, nearly no control bytes.

    Lines in several encodings (UTF-8 beside GBK or cp1252 lines) defeat detection; binary
    content holds NUL and control bytes (the test ``git`` and ``file`` use, NUL-based). Such
    text is decoded as UTF-8 with U+FFFD for what does not decode, and warned about
    (``replaced_warning``), rather than lost.
    """
    if not data or b"\x00" in data:
        return False
    controls = len(data) - len(data.translate(None, _BINARY_CONTROLS))  # one pass
    return controls <= TEXT_MAX_CONTROL_SHARE * len(data)


def replaced_warning(replaced: int, chars: int) -> str | None:
    """The warning for a file whose text holds ``replaced`` U+FFFD among ``chars`` characters.

    ``None`` at or below ``REPLACED_WARN_SHARE``: the file is indexed either way.
    """
    if chars <= 0 or replaced / chars <= REPLACED_WARN_SHARE:
        return None
    return (f"{replaced} undecodable characters replaced with U+FFFD ({replaced / chars:.1%} of "
            "the text): mixed or damaged encoding")


def detect_encoding(data: bytes) -> str:
    """The legacy encoding ``decode_bytes`` would pick for ``data`` (no BOM, not UTF-8).

    Raises:
        ValueError: no encoding decodes the bytes plausibly (binary content).
    """
    return _detect(data)[1]


def _detect(data: bytes) -> tuple[str, str]:
    """Decode legacy-encoded bytes with charset-normalizer, preferring common code pages.

    Single-byte code pages are often equally plausible (cp1252 "é" is cp1257 "ē"), and
    charset-normalizer's mess ratio alone then picks a rare one; among single-byte candidates
    within ``DETECT_CHAOS_TOLERANCE`` of the best, the first in ``PREFERRED_SINGLE_BYTE`` wins.
    A multi-byte (CJK) best guess is kept as is, unless the bytes read as Chinese in GB 18030
    and the guess does not (``kb.ingest.extract.gb_text``: short GBK notes).
    """
    matches = list(charset_normalizer.from_bytes(data))
    if not matches:
        raise ValueError(binary_kind(data) or "cannot determine the text encoding (binary "
                         "content?)")
    best = matches[0]
    if not is_multi_byte_encoding(best.encoding):
        close = [
            m
            for m in matches
            if m.chaos <= best.chaos + DETECT_CHAOS_TOLERANCE
            and not is_multi_byte_encoding(m.encoding)
        ]
        best = min(close, key=_preference)
    if best.encoding != "gb18030" and (text := gb_reading(data, str(best))) is not None:
        return text, "gb18030"  # a line or two of GBK read as Big5, CP949, CP874 ...
    return str(best), best.encoding


def _preference(match: CharsetMatch) -> int:
    ranks = [
        PREFERRED_SINGLE_BYTE.index(name)
        for name in match.could_be_from_charset
        if name in PREFERRED_SINGLE_BYTE
    ]
    return min(ranks, default=len(PREFERRED_SINGLE_BYTE))


def images_not_indexed(count: int) -> str:
    """The extractor's warning for ``count`` images whose content it cannot index.

    The ingest pipeline replaces it with what became of the images (described, or not
    indexed for want of a vision model).
    """
    return f"{count} images not indexed (no vision model configured)"


# titles a file's metadata holds that name no document: a generator's default ("Word Document"
# is python-docx's for a file without core properties, "(anonymous)" reportlab's) or a template's
PLACEHOLDER_TITLES = frozenset({
    "untitled", "untitled document", "title", "document", "slide 1", "word document",
    "(anonymous)", "anonymous", "(untitled)", "(unspecified)", "unspecified", "document1",
    "presentation", "powerpoint presentation", "microsoft word document"})


def placeholder_title(title: str) -> bool:
    """Whether ``title`` (from a file's metadata) is a generator's placeholder, no title."""
    return title.strip().lower() in PLACEHOLDER_TITLES


def one_line(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces and strip."""
    return " ".join(clean_text(text).split())


def cut_at_word(text: str, max_chars: int) -> str:
    """``text`` when it fits in ``max_chars`` code points, else cut at a word boundary.

    The cut text ends at the last space before the limit (or at the limit when there is
    none), without trailing spaces or ``,;:``, plus "…"; it is at most ``max_chars`` long.
    """
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def make_block(
    text: str, heading_path: tuple[str, ...] = (), page: int | None = None
) -> Block | None:
    """Build a block from already-cleaned text, or ``None`` when it is blank.

    Leading and trailing blank lines are removed; the text never contains NUL.
    """
    text = text.replace("\x00", "").strip("\n").rstrip()
    if not text.strip():
        return None
    return Block(text=text, heading_path=heading_path, page=page)


def build_document(
    path: Path,
    *,
    title: str | None,
    blocks: Iterable[Block | None],
    source_type: SourceType,
    warnings: Iterable[str] = (),
    created_at: datetime | None = None,
    empty_reason: str = "no extractable text",
    images: Iterable[ImageRef] = (),
    image_count: int = 0,
) -> ExtractedDocument:
    """Assemble an ``ExtractedDocument``, enforcing its invariants.

    Args:
        path: the source file (its stem is the fallback title).
        title: a title found in the document, or ``None``.
        blocks: blocks in reading order; ``None`` entries are skipped (image positions count
            the kept blocks only).
        source_type: the format.
        warnings: human-readable notes, de-duplicated in order.
        created_at: creation time; a naive value is taken as UTC. From a PDF's, DOCX's or
            web page's metadata it is checked (``checked_metadata_date``).
        empty_reason: the reason given when no block has text.
        images: the images that can be described, in document order.
        image_count: all images in the file (at least ``len(images)``).

    Raises:
        EmptyDocumentError: no block has text.

    """
    kept = tuple(b for b in blocks if b is not None)
    if not kept:
        raise EmptyDocumentError(path, empty_reason)
    clean_title = one_line(title or "") or one_line(path.stem) or one_line(path.name)
    if created_at is not None and created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    if created_at is not None and source_type in METADATA_DATED:
        created_at, note = checked_metadata_date(created_at)
        warnings = [*warnings, *([note] if note else [])]
    refs = tuple(images)
    return ExtractedDocument(
        title=clean_title,
        blocks=kept,
        source_type=source_type,
        warnings=tuple(dict.fromkeys(warnings)),
        created_at=created_at,
        images=refs,
        image_count=max(image_count, len(refs)),
    )


def require_nonempty(path: Path) -> None:
    """Check that ``path`` is a regular file with content.

    Raises:
        CorruptError: the file cannot be read (missing, a directory, an I/O error).
        EmptyDocumentError: the file is 0 bytes.

    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CorruptError(path, f"cannot read file: {exc.strerror or exc}") from exc
    if not path.is_file():
        raise CorruptError(path, "not a regular file")
    if size == 0:
        raise EmptyDocumentError(path, "empty file (0 bytes)")


def read_bytes(path: Path) -> bytes:
    """Read a whole file.

    Raises:
        CorruptError: the file cannot be read (missing, a directory, an I/O error).
        EmptyDocumentError: the file is 0 bytes.

    """
    require_nonempty(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorruptError(path, f"cannot read file: {exc.strerror or exc}") from exc
    if not data:
        raise EmptyDocumentError(path, "empty file (0 bytes)")
    return data
