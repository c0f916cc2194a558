"""DOCX via python-docx: body paragraphs and tables in order, headers, footers and notes.

python-docx opens the package, its parts and relationships; the text itself is read from the
WordprocessingML elements (``kb.ingest.extract.wordml``) so that tracked insertions, content
controls, text boxes, nested tables and footnotes are not lost. Pictures in the body (DrawingML
``a:blip`` and legacy VML ``v:imagedata``) are located after the block that holds them
(``ImageRef`` keyed by part name); ``load_docx_images`` reads their bytes for a vision model.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from lxml import etree

from kb.errors import CorruptError, ExtractError
from kb.ingest.extract.common import (
    build_document,
    images_not_indexed,
    make_block,
    one_line,
    placeholder_title,
    require_nonempty,
)
from kb.ingest.extract.dates import authored_at
from kb.ingest.extract.magic import readable_elsewhere
from kb.ingest.extract.text import EMPTY_DOCUMENT
from kb.ingest.extract.wordml import (
    W,
    container_lines,
    content,
    hidden_run,
    paragraph_text,
    table_lines,
    text_box_lines,
)
from kb.types import Block, ExtractedDocument, ImageRef

R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_BLIP = "{http://schemas.openxmlformats.org/drawingml/2006/main}blip"
_VML_IMAGE = "{urn:schemas-microsoft-com:vml}imagedata"
_NOTE_SEPARATORS = frozenset({"separator", "continuationSeparator", "continuationNotice"})
_HEADING_STYLE_RE = re.compile(r"^heading\s*([1-9])$", re.I)
_BODY_TEXT_OUTLINE_LEVEL = 9  # w:outlineLvl 0-8 are heading levels 1-9; 9 is body text
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


def extract_docx(path: Path) -> ExtractedDocument:
    """Extract a Word document in reading order.

    Body paragraphs under one heading form a block; each table is a block of rows (one line
    per row, cells joined by " | ", a nested table shown in brackets inside its cell).
    Headings come from the "Title" and "Heading 1-9" styles or an outline level. Headers and
    footers of all sections follow the body (de-duplicated, ``heading_path`` ``("Header",)``
    or ``("Footer",)``), then footnotes and endnotes (``("Footnotes",)``, ``("Endnotes",)``).
    The title is the core-properties title, else the first heading, else the file stem.

    Raises:
        EmptyDocumentError: the file is 0 bytes or holds no text.
        CorruptError: not a readable DOCX: ``not a valid DOCX file (REASON)``, the reason
            being ``not a ZIP archive`` (saying so when it is an OLE file, a Word 97-2003
            .doc renamed), a ZIP archive cut short, an OpenDocument file renamed,
            ``missing part NAME``, ``malformed XML: ...``, ``a package part is not what Word
            writes: ...`` (its content types) or the parser's own. An error of kb's own
            walker is not caught.

    """
    require_nonempty(path)
    try:
        document = docx.Document(str(path))
    except MemoryError:  # zlib's failed allocation: the memory budget, no corrupt file
        raise
    except Exception as exc:  # zipfile, lxml, KeyError for missing parts, ValueError ...
        raise CorruptError(path, f"not a valid DOCX file ({_docx_problem(path, exc)})") from exc
    try:
        return _extract(path, document)
    except ExtractError:
        raise
    except (KeyError, ValueError, etree.XMLSyntaxError, zipfile.BadZipFile) as exc:  # a part
        raise CorruptError(path, f"not a valid DOCX file ({_docx_problem(path, exc)})") from exc


# the signature of an OLE compound file (Word 97-2003 .doc, .xls, .ppt)
_OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")
_ZIP_MAGIC = b"PK\x03\x04"  # a ZIP archive's first local file header


def _docx_problem(path: Path, exc: Exception) -> str:
    """A short reason python-docx could not open ``path`` (its own messages are opaque)."""
    if not zipfile.is_zipfile(path):  # python-docx: "Package not found at ..."
        with path.open("rb") as f:
            head = f.read(8192)
        if head.startswith(_OLE_MAGIC):  # what Word 97-2003 wrote
            return ("not a ZIP archive but an OLE file: a Word 97-2003 .doc renamed "
                    ".docx? Save it as .docx")
        if head.startswith(_ZIP_MAGIC):  # a ZIP's first entry with no end record after it
            return ("a ZIP archive missing its end record: the file looks cut short or "
                    "damaged")
        elsewhere = readable_elsewhere(head).removeprefix("not text: ")
        return f"not a ZIP archive: {elsewhere}" if elsewhere else "not a ZIP archive"
    try:
        with zipfile.ZipFile(path) as z:
            mimetype = (z.read("mimetype").decode("ascii", "replace").strip()
                        if "mimetype" in z.namelist() else "")
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError):  # a damaged entry
        mimetype = ""
    if mimetype.startswith("application/vnd.oasis.opendocument"):
        return f"an OpenDocument file ({mimetype}) renamed .docx? Save it as .docx"
    text = one_line(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc))
    missing = re.fullmatch(r"There is no item named '(.+)' in the archive", text)
    if missing:
        return f"missing part {missing.group(1)}"
    if isinstance(exc, etree.XMLSyntaxError):
        return f"malformed XML: {text}"
    if isinstance(exc, AttributeError | TypeError):  # python-docx met a part it cannot read
        return f"a package part is not what Word writes: {_content_types_problem(path)}"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_TYPES = "{http://schemas.openxmlformats.org/package/2006/content-types}Types"


def _content_types_problem(path: Path) -> str:
    """What is wrong with the package's ``[Content_Types].xml``, or where else to look."""
    try:
        with zipfile.ZipFile(path) as z:
            root = etree.fromstring(z.read("[Content_Types].xml"))
    except KeyError:
        return "no [Content_Types].xml"
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, etree.XMLSyntaxError):
        return "[Content_Types].xml unreadable"
    name = etree.QName(root).localname
    if root.tag != _TYPES:
        return (f"[Content_Types].xml's root <{name}> is not the OPC <Types> (namespace "
                f"{_TYPES[1:_TYPES.index('}')]})")
    return "its content types or relationships"


def _extract(path: Path, document: Any) -> ExtractedDocument:
    walker = _BodyWalker(_style_levels(document), _image_resolver(document))
    walker.walk(document.element.body)
    walker.flush()
    blocks = [*walker.blocks, *_header_footer_blocks(document), *_note_blocks(document)]
    images = len(  # images used by the body, headers, notes ...; not the package thumbnail
        {
            rel.target_part.partname
            for part in document.part.package.iter_parts()
            for rel in part.rels.values()
            if rel.reltype == RT.IMAGE and not rel.is_external
        }
    )
    image_note = images_not_indexed(images)
    hidden = sum(1 for run in document.element.body.iter(W + "r") if hidden_run(run))
    hidden_note = (f"hidden text not indexed: {hidden} run{'s' * (hidden != 1)} formatted "
                   "hidden or under 2 pt")
    properties = document.core_properties
    return build_document(
        path,
        title=(None if placeholder_title(title := one_line(properties.title or ""))
               else title) or walker.first_heading,
        blocks=blocks,
        source_type="docx",
        warnings=[*([image_note] if images else []), *([hidden_note] if hidden else [])],
        created_at=authored_at(properties.created),
        empty_reason=f"no text in the document; {image_note}" if images else EMPTY_DOCUMENT,
        images=walker.images,
        image_count=images,
    )


def _image_resolver(document: Any) -> Callable[[str], str | None]:
    """Map a relationship id of the main part to its image part's name (``None``: not one)."""
    rels = document.part.rels

    def resolve(rid: str) -> str | None:
        rel = rels.get(rid)
        if rel is None or rel.reltype != RT.IMAGE or rel.is_external:
            return None
        return str(rel.target_part.partname)

    return resolve


def load_docx_images(path: Path, keys: Sequence[str]) -> Iterator[tuple[str, bytes | None, str]]:
    """Read the image parts ``keys`` (``ImageRef.key`` part names) of the DOCX at ``path``.

    Yields:
        ``(key, data, content_type)`` with the part's bytes as stored, or
        ``(key, None, reason)`` when the part is missing; one per key, in order.

    Raises:
        Exception: the package cannot be opened (it was readable when extracted).
    """
    package = docx.Document(str(path)).part.package
    parts = {str(part.partname): part for part in package.iter_parts()}
    for key in keys:
        part = parts.get(key)
        if part is None:
            yield key, None, f"image part {key} not found"
        else:
            yield key, part.blob, str(part.content_type)


def _style_levels(document: Any) -> dict[str, int]:
    """Map paragraph style ids to heading levels: 0 for "Title", 1-9 for headings."""
    levels: dict[str, int] = {}
    for style in document.styles.element.iterchildren(W + "style"):
        name_el = style.find(W + "name")
        name = (name_el.get(W + "val") if name_el is not None else None) or ""
        match = _HEADING_STYLE_RE.match(name)
        if name.lower() == "title":
            levels[style.get(W + "styleId")] = 0
        elif match:
            levels[style.get(W + "styleId")] = int(match[1])
        elif (level := _outline_level(style)) is not None:
            levels[style.get(W + "styleId")] = level
    return levels


def _outline_level(element: Any) -> int | None:
    """Return the heading level (1-9) of a ``w:pPr/w:outlineLvl`` under ``element``."""
    outline = element.find(f"{W}pPr/{W}outlineLvl")
    value = outline.get(W + "val") if outline is not None else None
    if value is None or not value.isdigit() or int(value) >= _BODY_TEXT_OUTLINE_LEVEL:
        return None
    return int(value) + 1


class _BodyWalker:
    """Walks the body's block content, cutting a block at every heading paragraph."""

    def __init__(self, style_levels: dict[str, int],
                 resolve_image: Callable[[str], str | None]) -> None:
        self.style_levels = style_levels
        self.resolve_image = resolve_image
        self.blocks: list[Block] = []
        self.images: list[ImageRef] = []
        self.pending_images: list[str] = []  # image part names inside the current block
        self.image_parts: set[str] = set()
        self.stack: list[tuple[int, str]] = []  # (level, heading text), outermost first
        self.lines: list[str] = []
        self.first_heading: str | None = None

    def walk(self, container: Any) -> None:
        for child in container.iterchildren():
            if child.tag == W + "p":
                self._paragraph(child)
            elif child.tag == W + "tbl":
                self.flush()
                self.lines.extend(table_lines(child))
                self._images_in(child)
                self.flush()
            elif child.tag in (W + "sdt", W + "customXml"):
                self.walk(content(child))

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
        self.lines.extend([text] if text else [])
        self.lines.extend(text_box_lines(p))
        self._images_in(p)

    def _images_in(self, element: Any) -> None:
        """Note the pictures under ``element``, each image part once per document."""
        for node in element.iter(_BLIP, _VML_IMAGE):
            rid = node.get(R + "embed") if node.tag == _BLIP else node.get(R + "id")
            part = self.resolve_image(rid) if rid else None
            if part is not None and part not in self.image_parts:
                self.image_parts.add(part)
                self.pending_images.append(part)

    def _level(self, p: Any) -> int | None:
        style = p.find(f"{W}pPr/{W}pStyle")
        if style is not None and style.get(W + "val") in self.style_levels:
            return self.style_levels[style.get(W + "val")]
        return _outline_level(p)

    def flush(self) -> None:
        """End the current block."""
        heading_path = tuple(h for _, h in self.stack)
        block = make_block("\n".join(self.lines), heading_path)
        if block is not None:
            self.blocks.append(block)
        self.lines.clear()
        # The block's pictures are described right after it (or in its place if it is blank).
        self.images.extend(ImageRef(key=part, position=len(self.blocks),
                                    heading_path=heading_path)
                           for part in self.pending_images)
        self.pending_images.clear()


def _header_footer_blocks(document: Any) -> list[Block | None]:
    """Headers and footers referenced by any section, first occurrence of each text only."""
    blocks: list[Block | None] = []
    seen: set[str] = set()
    related = document.part.related_parts
    for sect in document.element.body.iter(W + "sectPr"):
        for ref in sect.iterchildren(W + "headerReference", W + "footerReference"):
            part = related.get(ref.get(R + "id"))
            text = "\n".join(container_lines(part.element)) if part is not None else ""
            if text.strip() and text not in seen:
                seen.add(text)
                label = "Header" if ref.tag == W + "headerReference" else "Footer"
                blocks.append(make_block(text, (label,)))
    return blocks


def _note_blocks(document: Any) -> list[Block | None]:
    """Footnotes, then endnotes, one line per note; separator pseudo-notes are skipped."""
    blocks: list[Block | None] = []
    for reltype, tag, label in (
        (RT.FOOTNOTES, "footnote", "Footnotes"),
        (RT.ENDNOTES, "endnote", "Endnotes"),
    ):
        for rel in document.part.rels.values():
            if rel.reltype != reltype or rel.is_external:
                continue
            # python-docx has no notes API: the part is a plain blob unless it was parsed.
            root = getattr(rel.target_part, "element", None)
            if root is None:
                root = etree.fromstring(rel.target_part.blob, _XML_PARSER)
            notes = [
                " ".join(container_lines(note))
                for note in root.iterchildren(W + tag)
                if note.get(W + "type") not in _NOTE_SEPARATORS
            ]
            blocks.append(make_block("\n".join(n for n in notes if n.strip()), (label,)))
    return blocks
