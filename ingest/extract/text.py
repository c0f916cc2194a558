"""Plain text and Markdown: decode the bytes, then split Markdown at ATX headings."""

from __future__ import annotations

import re
from pathlib import Path

from ingest.extract.common import (
    build_document,
    clean_text,
    decode_bytes,
    make_block,
    one_line,
    read_bytes,
)
from kb.errors import CorruptError
from kb.types import Block, ExtractedDocument

# CommonMark: up to 3 spaces of indent, 1-6 '#', then a space/tab or the end of the line.
_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES_RE = re.compile(r"(?:^|[ \t]+)#+$")
# A fence opens with 3+ backticks or tildes after up to 3 spaces of indent.
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def read_text(path: Path) -> str:
    """Read and decode a text file; newlines become LF, NUL and control characters go.

    Raises:
        CorruptError: the file cannot be read, or its encoding cannot be determined.
        EmptyDocumentError: the file is 0 bytes.

    """
    data = read_bytes(path)
    try:
        text, _encoding = decode_bytes(data)
    except ValueError as exc:
        raise CorruptError(path, str(exc)) from exc
    return clean_text(text)


def extract_text(path: Path) -> ExtractedDocument:
    """Extract a plain-text file as one block titled with the file stem.

    Raises:
        CorruptError: unreadable, or not text in any detectable encoding.
        EmptyDocumentError: the file is empty or whitespace only.

    """
    text = read_text(path)
    return build_document(
        path, title=None, blocks=[make_block(text)], source_type="txt", empty_reason="no text"
    )


def extract_markdown(path: Path) -> ExtractedDocument:
    """Extract a Markdown file as one block per ATX-heading section.

    Each block holds its heading line and the text under it, with ``heading_path`` naming the
    enclosing headings outermost first; text before the first heading has an empty path.
    ``#`` lines inside fenced code blocks are not headings. The title is the first level-1
    heading, else the file stem.

    Raises:
        CorruptError: unreadable, or not text in any detectable encoding.
        EmptyDocumentError: the file is empty or whitespace only.

    """
    text = read_text(path)
    blocks, title = split_markdown(text)
    return build_document(
        path, title=title, blocks=blocks, source_type="md", empty_reason="no text"
    )


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
