"""DOCX via python-docx: body paragraphs and tables in order, headers, footers and notes.

python-docx opens the package and gives the parts; the text is read from the WordprocessingML
elements directly so that content python-docx skips (tracked insertions, content controls,
text boxes, nested tables, footnotes) is not lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from lxml import etree

from ingest.extract.common import build_document, clean_text, make_block, one_line, require_nonempty
from kb.errors import CorruptError, ExtractError
from kb.types import Block, ExtractedDocument

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
# Inline elements whose text is not the paragraph's reading text.
_SKIPPED = frozenset(
    W + name
    for name in ("pPr", "rPr", "del", "moveFrom", "delText", "instrText", "txbxContent", "sym")
) | {MC_FALLBACK}
_NOTE_SEPARATORS = frozenset({"separator", "continuationSeparator", "continuationNotice"})
_HEADING_STYLE_RE = re.compile(r"^heading\s*([1-9])$", re.I)
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


def extract_docx(path: Path) -> ExtractedDocument:
    """Extract a Word document in reading order.

    Body paragraphs under one heading form a block; each table is a block of rows (one line
    per row, cells joined by " | ", a nested table shown in brackets inside its cell).
    Headings come from the "Title" and "Heading 1-9" styles or an outline level. Headers and
    footers of all sections follow the body (de-duplicated, ``heading_path`` ``("Header",)``
    or ``("Footer",)``), then footnotes and endnotes (``("Footnotes",)``, ``("Endnotes",)``).

    Raises:
        EmptyDocumentError: the file is 0 bytes or holds no text.
        CorruptError: not a readable DOCX (bad zip, malformed XML, missing parts).

    """
    require_nonempty(path)
    try:
        document = docx.Document(str(path))
        return _extract(path, document)
    except ExtractError:
        raise
    except Exception as exc:  # zipfile, lxml, KeyError for missing parts, ValueError ...
        text = one_line(str(exc))
        reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        raise CorruptError(path, f"malformed DOCX: {reason}") from exc


def _extract(path: Path, document: Any) -> ExtractedDocument:
    walker = _BodyWalker(_style_levels(document))
    walker.walk(document.element.body)
    walker.flush()
    blocks = [*walker.blocks, *_header_footer_blocks(document), *_note_blocks(document)]
    images = sum(
        1 for part in document.part.package.iter_parts() if part.content_type.startswith("image/")
    )
    image_note = f"{images} images not indexed (no vision model configured)"
    warnings = [image_note] if images else []
    properties = document.core_properties
    return build_document(
        path,
        title=one_line(properties.title or "") or walker.first_heading,
        blocks=blocks,
        source_type="docx",
        warnings=warnings,
        created_at=properties.created,
        empty_reason="no text in the document" + (f"; {image_note}" if images else ""),
    )


def _style_levels(document: Any) -> dict[str, int]:
    """Heading level (0 for "Title", 1-9 for headings) per paragraph style id."""
    levels: dict[str, int] = {}
    for style in document.styles.element.iterchildren(W + "style"):
        style_id = style.get(W + "styleId")
        name_el = style.find(W + "name")
        name = (name_el.get(W + "val") if name_el is not None else None) or ""
        match = _HEADING_STYLE_RE.match(name)
        outline = style.find(f"{W}pPr/{W}outlineLvl")
        if name.lower() == "title":
            levels[style_id] = 0
        elif match:
            levels[style_id] = int(match[1])
        elif outline is not None and (outline.get(W + "val") or "").isdigit():
            if int(outline.get(W + "val")) < 9:  # level 9 means body text
                levels[style_id] = int(outline.get(W + "val")) + 1
    return levels


class _BodyWalker:
    """Walks block-level content, cutting a block at every heading paragraph."""

    def __init__(self, style_levels: dict[str, int]) -> None:
        self.style_levels = style_levels
        self.blocks: list[Block] = []
        self.stack: list[tuple[int, str]] = []  # (level, heading text), outermost first
        self.lines: list[str] = []
        self.first_heading: str | None = None

    def walk(self, container: Any) -> None:
        for child in container.iterchildren():
            if child.tag == W + "p":
                self._paragraph(child)
            elif child.tag == W + "tbl":
                self.flush()
                self.lines.extend(_table_lines(child))
                self.flush()
            elif child.tag in (W + "sdt", W + "customXml"):
                self.walk(_content(child))

    def _paragraph(self, p: Any) -> None:
        text = paragraph_text(p)
        level = self._level(p)
        if level is not None and text:
            self.flush()
            heading = one_line(text)
            while self.stack and self.stack[-1][0] >= level:
                self.stack.pop()
            self.stack.append((level, heading))
            self.first_heading = self.first_heading or heading
        self.lines.extend(_paragraph_lines(p))

    def _level(self, p: Any) -> int | None:
        style = p.find(f"{W}pPr/{W}pStyle")
        if style is not None and style.get(W + "val") in self.style_levels:
            return self.style_levels[style.get(W + "val")]
        outline = p.find(f"{W}pPr/{W}outlineLvl")
        value = outline.get(W + "val") if outline is not None else None
        return int(value) + 1 if value is not None and value.isdigit() and int(value) < 9 else None

    def flush(self) -> None:
        """End the current block."""
        block = make_block("\n".join(self.lines), tuple(h for _, h in self.stack))
        if block is not None:
            self.blocks.append(block)
        self.lines.clear()


def paragraph_text(p: Any) -> str:
    """Return the reading text of a ``w:p``: runs, hyperlinks, insertions, fields' results.

    Tabs stay tabs and breaks become newlines; deleted text, field codes and text boxes are
    left out (text boxes are read as their own lines).
    """
    parts: list[str] = []
    _collect(p, parts)
    return clean_text("".join(parts)).strip()


def _collect(element: Any, parts: list[str]) -> None:
    for child in element.iterchildren():
        tag = child.tag
        if tag in _SKIPPED or not isinstance(tag, str):
            continue
        if tag == W + "t":
            parts.append(child.text or "")
        elif tag in (W + "tab", W + "ptab"):
            parts.append("\t")
        elif tag in (W + "br", W + "cr"):
            parts.append("\n")
        elif tag == W + "noBreakHyphen":
            parts.append("-")
        else:
            _collect(child, parts)


def _content(element: Any) -> Any:
    """Return the content of ``w:sdt`` (its ``w:sdtContent``) or of ``w:customXml`` (itself)."""
    inner = element.find(W + "sdtContent")
    return inner if inner is not None else element


def _paragraph_lines(p: Any) -> list[str]:
    """Return the paragraph's text, then the lines of the text boxes anchored in it."""
    text = paragraph_text(p)
    lines = [text] if text else []
    for box in p.iter(W + "txbxContent"):
        if _outermost_box(box, p):
            lines.extend(container_lines(box))
    return lines


def _outermost_box(box: Any, p: Any) -> bool:
    """Whether ``box`` is directly in ``p`` (not a fallback copy, not inside another box)."""
    parent = box.getparent()
    while parent is not None and parent is not p:
        if parent.tag in (MC_FALLBACK, W + "txbxContent"):
            return False
        parent = parent.getparent()
    return True


def container_lines(container: Any) -> list[str]:
    """Lines of any block container (cell, header, note, text box): paragraphs and tables."""
    lines: list[str] = []
    for child in container.iterchildren():
        if child.tag == W + "p":
            lines.extend(_paragraph_lines(child))
        elif child.tag == W + "tbl":
            lines.extend(_table_lines(child))
        elif child.tag in (W + "sdt", W + "customXml"):
            lines.extend(container_lines(_content(child)))
    return lines


def _table_lines(tbl: Any) -> list[str]:
    """One line per row, cells joined by " | "; a nested table is inlined in brackets."""
    lines = []
    for row in _children(tbl, W + "tr"):
        cells = [_cell_text(cell) for cell in _children(row, W + "tc")]
        if any(cells):
            lines.append(" | ".join(cells))
    return lines


def _cell_text(cell: Any) -> str:
    pieces = []
    for child in _children(cell, W + "p", W + "tbl"):
        if child.tag == W + "tbl":
            pieces.append("[" + "; ".join(_table_lines(child)) + "]")
        else:
            pieces.extend(_paragraph_lines(child))
    return one_line(" ".join(p for p in pieces if p.strip() not in ("", "[]")))


def _children(element: Any, *tags: str) -> Iterator[Any]:
    """Direct children with one of ``tags``, looking through content controls."""
    for child in element.iterchildren():
        if child.tag in tags:
            yield child
        elif child.tag in (W + "sdt", W + "customXml"):
            yield from _children(_content(child), *tags)


def _header_footer_blocks(document: Any) -> list[Block | None]:
    blocks: list[Block | None] = []
    seen: set[str] = set()
    related = document.part.related_parts
    for sect in document.element.body.iter(W + "sectPr"):
        for ref in sect.iterchildren(W + "headerReference", W + "footerReference"):
            part = related.get(ref.get(R + "id"))
            if part is None:
                continue
            text = "\n".join(container_lines(part.element))
            if text.strip() and text not in seen:
                seen.add(text)
                label = "Header" if ref.tag == W + "headerReference" else "Footer"
                blocks.append(make_block(text, (label,)))
    return blocks


def _note_blocks(document: Any) -> list[Block | None]:
    blocks: list[Block | None] = []
    for reltype, tag, label in (
        (RT.FOOTNOTES, "footnote", "Footnotes"),
        (RT.ENDNOTES, "endnote", "Endnotes"),
    ):
        for rel in document.part.rels.values():
            if rel.reltype != reltype or rel.is_external:
                continue
            part = rel.target_part
            root = getattr(part, "element", None)
            if root is None:
                root = etree.fromstring(part.blob, _XML_PARSER)
            notes = [
                " ".join(container_lines(note))
                for note in root.iterchildren(W + tag)
                if note.get(W + "type") not in _NOTE_SEPARATORS
            ]
            blocks.append(make_block("\n".join(n for n in notes if n.strip()), (label,)))
    return blocks
