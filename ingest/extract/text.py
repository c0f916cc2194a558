"""Plain text and Markdown: decode the bytes, then split Markdown at ATX headings.

Plain text is read, decoded and cleaned in bounded pieces (``iter_text``), so a 100 MB file
never sits in memory whole: the ingest pipeline chunks and writes it as it arrives.
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from kb.errors import CorruptError, EmptyDocumentError, ExtractError
from kb.ingest.extract.cleaning import (
    clean_text,
    controls_warning,
    dropped_controls,
    unfinished_escape,
    without_escapes,
)
from kb.ingest.extract.common import (
    BOMS,
    build_document,
    decode_bytes,
    detect_encoding,
    guessed_warning,
    looks_like_text,
    make_block,
    mostly_utf8,
    one_line,
    read_bytes,
    replaced_warning,
    require_nonempty,
)
from kb.ingest.extract.frontmatter import parse_front_matter
from kb.ingest.extract.magic import readable_elsewhere
from kb.ingest.extract.utf16 import utf16_without_bom
from kb.types import Block, ExtractedDocument

PIECE_BYTES = 1 << 20  # plain text is read and decoded 1 MiB at a time
EMPTY_FILE = "empty file"  # the reason an empty file is skipped, not failed
FRONT_MATTER_ONLY = "empty file (front matter only)"  # a note with no body: skipped too
EMPTY_DOCUMENT = "empty document (no text, no images)"  # a blank Word file: skipped too
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".html", ".htm"})  # may be blank text
DETECT_SAMPLE_BYTES = 8 << 20  # a legacy encoding is detected on the first 8 MiB at most

# CommonMark: up to 3 spaces of indent, 1-6 '#', then a space/tab or the end of the line.
_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES_RE = re.compile(r"(?:^|[ \t]+)#+$")
# A fence opens with 3+ backticks or tildes after up to 3 spaces of indent.
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def read_text(path: Path) -> tuple[str, DecodedCounts]:
    """Read and decode a text file; newlines become LF, NUL and control characters go.

    Returns:
        The text, and what decoding it counted (``DecodedCounts``).

    Raises:
        CorruptError: the file cannot be read, or its encoding cannot be determined.
        EmptyDocumentError: the file is 0 bytes.

    """
    data = read_bytes(path)
    try:
        decoded = decode_bytes(data)
    except ValueError as exc:
        raise CorruptError(path, str(exc)) from exc
    text = decoded.text
    return clean_text(text, separators=True), DecodedCounts(len(text), text.count("\ufffd"),
                                           decoded.encoding if decoded.guessed else None,
                                           dropped_controls(text))


@dataclasses.dataclass(slots=True)
class DecodedCounts:
    """What ``iter_text`` decoded: characters, U+FFFD among them, a guessed encoding.

    ``replaced`` feeds ``replaced_warning``; ``guessed`` (set when charset detection chose the
    encoding) feeds ``guessed_warning``; ``controls`` (NUL and control characters dropped)
    feeds ``controls_warning``.
    """

    chars: int = 0
    replaced: int = 0
    guessed: str | None = None
    controls: int = 0

    def warning(self) -> str | None:
        """The file's warning: too many characters undecodable, or its encoding guessed."""
        if self.guessed:
            return guessed_warning(self.guessed)
        return replaced_warning(self.replaced, self.chars)

    def controls_warning(self) -> str | None:
        """The file's warning for the NUL and control characters dropped, if any."""
        return controls_warning(self.controls)

    def warnings(self) -> list[str]:
        """Both warnings the file has (``warning``, then ``controls_warning``)."""
        return [w for w in (self.warning(), self.controls_warning()) if w]


def extract_text(path: Path) -> ExtractedDocument:
    """Extract a plain-text file as one block titled with the file stem.

    The block's text is ``"".join(iter_text(path))``; mixed encoding is a warning
    (``DecodedCounts``).

    Raises:
        CorruptError: unreadable, or not text in any detectable encoding.
        EmptyDocumentError: the file is empty or whitespace only.

    """
    counts = DecodedCounts()
    text = "".join(iter_text(path, counts))
    return build_document(path, title=None, blocks=[make_block(text)], source_type="txt",
                          empty_reason="no text", warnings=counts.warnings())


def text_encoding(path: Path) -> tuple[str, int, str]:
    """A text file's encoding, the bytes to skip (its byte-order mark) and the error handler.

    As ``decode_bytes``, read in pieces: a byte-order mark; else UTF-8 when the whole file is
    valid UTF-8; else, on the first ``DETECT_SAMPLE_BYTES`` (cut at a line end), UTF-8 with
    ``replace`` when it is mostly UTF-8, or charset-normalizer's guess (``strict``), or, when
    nothing decodes a sample that still looks like text (``looks_like_text``), UTF-8 with
    ``replace``.

    Raises:
        CorruptError: the file cannot be read, no encoding decodes it plausibly, or it is a
            PDF or a DOCX (``readable_elsewhere``).
        EmptyDocumentError: the file is 0 bytes.
    """
    require_nonempty(path)
    try:
        with path.open("rb") as fh:
            if elsewhere := readable_elsewhere(fh.read(8192)):  # a PDF renamed .txt
                raise CorruptError(path, elsewhere)
            fh.seek(0)
            head = fh.read(4)
            for bom, encoding in BOMS:
                if head.startswith(bom):
                    return encoding, len(bom), "strict"
            fh.seek(0)
            if utf16 := utf16_without_bom(fh.read(DETECT_SAMPLE_BYTES)):
                return utf16, 0, "replace"  # an odd last byte (a file cut short) is no error
            fh.seek(0)
            decoder = codecs.getincrementaldecoder("utf-8")()
            try:
                while piece := fh.read(PIECE_BYTES):
                    decoder.decode(piece)
                decoder.decode(b"", final=True)
                return "utf-8", 0, "strict"
            except UnicodeDecodeError:
                pass
            fh.seek(0)
            sample = fh.read(DETECT_SAMPLE_BYTES)
            if fh.read(1):  # more follows: end the sample at a line end
                sample = sample[:sample.rfind(b"\n") + 1] or sample
    except OSError as exc:
        raise CorruptError(path, f"cannot read file: {exc.strerror or exc}") from exc
    if mostly_utf8(sample):
        return "utf-8", 0, "replace"
    try:
        return detect_encoding(sample), 0, "strict"
    except ValueError as exc:
        if looks_like_text(sample):  # lines in several encodings: keep what UTF-8 reads
            return "utf-8", 0, "replace"
        raise CorruptError(path, str(exc)) from exc


def iter_text(path: Path, counts: DecodedCounts | None = None) -> Iterator[str]:
    """The text of a plain-text file in pieces of about ``PIECE_BYTES``, decoded and cleaned.

    The pieces join to what ``make_block(clean_text(decoded, separators=True))`` keeps:
    newlines are LF, NUL separates words, other control characters are gone, leading blank
    lines and trailing whitespace are dropped. A file is read twice at most (once to check
    UTF-8), never held whole. A mostly UTF-8 file's stray bytes become U+FFFD, counted in
    ``counts`` with the characters decoded.

    Raises:
        CorruptError: unreadable, not text in any detectable encoding, or a byte sequence
            the detected encoding cannot decode (its offset is given).
        EmptyDocumentError: the file is empty or whitespace only.
    """
    encoding, skip, errors = text_encoding(path)
    if counts is not None and not skip and encoding != "utf-8":  # charset detection's guess
        counts.guessed = encoding
    decoder = codecs.getincrementaldecoder(encoding)(errors=errors)
    pending = ""  # cleaned trailing whitespace, not yet known to be followed by text
    carry = ""  # a CR ending a piece: with an LF starting the next it is one newline
    started = False
    offset = skip
    try:
        with path.open("rb") as fh:
            fh.seek(skip)
            while True:
                data = fh.read(PIECE_BYTES)
                try:
                    raw = decoder.decode(data, final=not data)
                except UnicodeDecodeError as exc:
                    raise CorruptError(path, f"not valid {encoding} at byte "
                                       f"{offset + exc.start}") from exc
                offset += len(data)
                if counts is not None:
                    counts.chars += len(raw)
                    counts.replaced += raw.count("\ufffd")
                raw, carry = carry + raw, ""
                if data:  # a CR or an escape sequence ending the piece: read with the next
                    cut = unfinished_escape(raw)
                    raw, carry = raw[:cut], raw[cut:]
                    if raw.endswith("\r"):
                        raw, carry = raw[:-1], "\r" + carry
                if counts is not None:
                    counts.controls += dropped_controls(raw)
                cleaned = pending + clean_text(raw, separators=True)
                body = cleaned.rstrip()
                pending = cleaned[len(body):]
                if body and not started:
                    body = body.lstrip("\n")
                    started = True
                if body:
                    yield body
                if not data:
                    break
    except OSError as exc:
        raise CorruptError(path, f"cannot read file: {exc.strerror or exc}") from exc
    if not started:
        raise EmptyDocumentError(path, "no text")


def is_blank_text(path: Path) -> bool:
    """Whether the file is empty: 0 bytes, or text that is whitespace only once decoded.

    Read in pieces, stopping at the first character that is not whitespace. A file kb cannot
    read or decode is not blank (it fails with its own reason); neither is one of control
    characters such as NUL (binary, not an empty note); one of a terminal's colour codes
    alone is.
    """
    try:
        encoding, skip, errors = text_encoding(path)
    except EmptyDocumentError:  # 0 bytes
        return True
    except ExtractError:
        return False
    decoder = codecs.getincrementaldecoder(encoding)(errors=errors)
    try:
        with path.open("rb") as fh:
            fh.seek(skip)
            while True:
                data = fh.read(PIECE_BYTES)  # (colour codes alone are no text either)
                if without_escapes(decoder.decode(data, final=not data)).strip():
                    return False
                if not data:
                    return True
    except (OSError, UnicodeDecodeError):
        return False


def extract_markdown(path: Path) -> ExtractedDocument:
    """Extract a Markdown file as one block per ATX-heading section.

    Front matter (a YAML ``---`` or TOML ``+++`` block on the first line) is metadata, not
    text: its ``title`` beats the first heading, its date is ``created_at`` (what time decay
    measures age from) and its ``tags`` are the document's tags (``parse_front_matter``).

    Each block holds its heading line and the text under it, with ``heading_path`` naming the
    enclosing headings outermost first; text before the first heading has an empty path.
    ``#`` lines inside fenced code blocks are not headings. The title is the first level-1
    heading, else the file stem.

    Raises:
        CorruptError: unreadable, or not text in any detectable encoding.
        EmptyDocumentError: the file is empty or whitespace only (front matter aside: a
            note of front matter alone is ``FRONT_MATTER_ONLY``).

    """
    text, counts = read_text(path)
    front = parse_front_matter(text)
    if front.body_start and not text[front.body_start:].strip():
        raise EmptyDocumentError(path, FRONT_MATTER_ONLY)
    blocks, title = split_markdown(text[front.body_start:])
    doc = build_document(
        path, title=front.title or title, blocks=blocks, source_type="md", empty_reason="no text",
        created_at=front.created_at, warnings=[*filter(None, [front.warning]), *counts.warnings()],
    )
    return dataclasses.replace(doc, tags=front.tags) if front.tags else doc


def split_markdown(text: str) -> tuple[list[Block], str | None]:
    """Split Markdown source at ATX headings outside fenced code blocks.

    Args:
        text: Markdown source with LF newlines.

    Returns:
        The blocks in order (blank sections dropped) and the first level-1 heading's text,
        or ``None`` when there is none.

    """
    blocks: list[Block] = []
    title: str | None = None
    stack: list[tuple[int, str]] = []  # (level, heading text), outermost first
    section: list[str] = []
    fence: str | None = None  # the opening fence's marker while inside a code block

    def flush() -> None:
        block = make_block("\n".join(section), tuple(h for _, h in stack))
        if block is not None:
            blocks.append(block)
        section.clear()

    for line in text.split("\n"):
        fence_match = _FENCE_RE.match(line)
        if fence is not None:
            if fence_match and _closes(fence, fence_match):
                fence = None
        elif fence_match and not (fence_match[1][0] == "`" and "`" in fence_match[2]):
            fence = fence_match[1]
        else:
            heading = _ATX_RE.match(line)
            if heading:
                flush()
                level = len(heading[1])
                label = one_line(_CLOSING_HASHES_RE.sub("", heading[2] or ""))
                while stack and stack[-1][0] >= level:
                    stack.pop()
                if label:
                    stack.append((level, label))
                    if level == 1 and title is None:
                        title = label
        section.append(line)
    flush()
    return blocks, title


def _closes(opening: str, match: re.Match[str]) -> bool:
    """Whether a fence line closes the block opened by ``opening`` (same char, no info)."""
    marker = match[1]
    return marker[0] == opening[0] and len(marker) >= len(opening) and not match[2].strip()
