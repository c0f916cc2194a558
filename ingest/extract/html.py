"""HTML: the page's main content split at h1-h6, with page chrome left out.

The main content is found by readability-lxml (a port of Arc90's Readability, the algorithm of
Firefox's reader view); when it finds none, the whole visible text is kept (scripts, styles,
nav, footer and hidden elements dropped), as before main-content extraction existed.
`bench/html_main_content.py` measures both on the readability test pages.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag
from lxml.etree import LxmlError
from readability import Document as ReadabilityDocument
from readability.readability import Unparseable

from kb.errors import CorruptError
from kb.ingest.extract.common import (
    build_document,
    clean_text,
    decode_bytes,
    guessed_warning,
    make_block,
    one_line,
    read_bytes,
)
from kb.types import Block, ExtractedDocument

# Elements whose content is never reading text.
DROPPED_TAGS = (
    "head", "script", "style", "noscript", "template", "svg", "math", "nav", "footer",
    "iframe", "object", "embed", "canvas", "audio", "video", "select", "button", "link", "meta",
)  # fmt: skip
HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Elements that start a new line in the text; everything else is inline.
BLOCK_TAGS = frozenset(
    "address article aside blockquote body dd details dialog div dl dt fieldset figcaption "
    "figure form header hgroup hr html li main ol p pre section summary table tbody td tfoot "
    "th thead tr ul caption legend center".split()
)
# Marks each element's position in the page, to find where readability's content starts.
_POSITION_ATTR = "data-kb-position"
_HIDDEN_STYLE_RE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
_META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_ENCODING_RE = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")
# <meta> names that carry a publication date, in order of preference.
_DATE_META = (
    "article:published_time", "og:published_time", "datepublished", "dc.date.issued",
    "dc.date", "dcterms.created", "date", "pubdate",
)  # fmt: skip


def extract_html(path: Path, *, main_content: bool = True) -> ExtractedDocument:
    """Extract the main content of an HTML page, one block per heading section.

    The bytes are decoded from a BOM, as UTF-8 when valid, else with the declared charset,
    else by detection. Scripts, styles, navigation, footers, templates, SVG and elements
    hidden with the ``hidden`` attribute or ``display: none`` are dropped; then, with
    ``main_content``, readability-lxml keeps the article and leaves out the page's chrome
    (menus, sign-in links, related stories, comment prompts); when it keeps no text, the
    whole visible text is used. Each h1-h6 starts a block whose ``heading_path`` holds the
    enclosing headings; table rows become lines with cells joined by " | ". The title is
    ``<title>``, else the first h1, else the file stem.

    Args:
        path: the page.
        main_content: keep only the main content (``False``: all visible text).

    Raises:
        CorruptError: unreadable, or not text in any detectable encoding.
        EmptyDocumentError: no visible text.

    """
    data = read_bytes(path)
    try:
        markup, encoding, guessed = decode_bytes(data, declared=_declared_charset(data))
    except ValueError as exc:
        raise CorruptError(path, str(exc)) from exc
    try:
        soup = BeautifulSoup(markup, "lxml")
        title_tag = soup.find("title")
        title = one_line(title_tag.get_text()) if title_tag else ""
        created_at = _published_time(soup)
        _drop_invisible(soup)
        if not title:
            h1 = soup.find("h1")
            title = one_line(h1.get_text(" ")) if h1 else ""
        main = _main_content(soup) if main_content else None
        blocks = _blocks(*main) if main is not None else []
        if not blocks:
            blocks = _blocks(soup)
    except Exception as exc:  # pathological markup (e.g. nesting past the recursion limit)
        raise CorruptError(path, f"cannot parse HTML: {type(exc).__name__}: {exc}") from exc
    return build_document(
        path,
        title=title,
        blocks=blocks,
        source_type="html",
        created_at=created_at,
        empty_reason="no visible text",
        warnings=[guessed_warning(encoding)] if guessed else [],
    )


def _main_content(soup: BeautifulSoup) -> tuple[BeautifulSoup, list[tuple[int, str]]] | None:
    """The page's main content as readability-lxml finds it, and the headings enclosing it.

    Returns ``None`` when readability finds no text. Otherwise the content and the heading
    stack (level, text), outermost first, in force where it starts in the page (an article's
    h1 often stands just outside the element readability keeps). Links inside headings and
    data tables are unwrapped first (their text stays), and the cells of data tables lose their
    class and id: readability drops headings and tables dense with links (Wikipedia's "[edit]"
    headings, its infobox) and elements whose class looks like chrome ("header_cell").
    """
    headings: list[tuple[int, int, str]] = []  # (position, level, text) in document order
    for position, tag in enumerate(soup.find_all(True)):
        tag[_POSITION_ATTR] = str(position)
        if tag.name in HEADING_TAGS:
            for link in tag.find_all("a"):
                link.unwrap()
            headings.append((position, int(tag.name[1]), one_line(tag.get_text(" "))))
        elif tag.name == "table" and _is_data_table(tag):
            for link in tag.find_all("a"):
                link.unwrap()
            for cell in tag.find_all(True):  # class names such as "header_cell" read as chrome
                for name in ("class", "id"):
                    cell.attrs.pop(name, None)
    try:
        summary = ReadabilityDocument(str(soup)).summary(html_partial=True)
    except (Unparseable, LxmlError, ValueError, RecursionError):
        return None
    main = BeautifulSoup(summary, "lxml")
    marks = (str(t.get(_POSITION_ATTR, "")) for t in main.find_all(True))
    positions = [int(m) for m in marks if m.isdigit()]
    if not positions or not one_line(main.get_text(" ")):
        return None
    stack: list[tuple[int, str]] = []
    for position, level, text in headings:
        if position >= min(positions):
            break
        if text:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
    return main, stack


def _blocks(root: Tag, stack: list[tuple[int, str]] | None = None) -> list[Block]:
    walker = _Walker(stack)
    walker.walk(root)
    walker.flush()
    return walker.blocks


def _declared_charset(data: bytes) -> str | None:
    head = data[:4096]
    match = _XML_ENCODING_RE.match(head) or _META_CHARSET_RE.search(head)
    return match[1].decode("ascii") if match else None


def _published_time(soup: BeautifulSoup) -> datetime | None:
    found: dict[str, str] = {}
    for meta in soup.find_all("meta"):
        key = str(meta.get("property") or meta.get("name") or meta.get("itemprop") or "")
        content = meta.get("content")
        if key.lower() in _DATE_META and isinstance(content, str):
            found.setdefault(key.lower(), content.strip())
    for key in _DATE_META:
        if key in found:
            try:
                return datetime.fromisoformat(found[key].replace("Z", "+00:00"))
            except ValueError:
                continue
    return None


def _drop_invisible(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(DROPPED_TAGS):
        tag.decompose()
    for tag in soup.find_all(_is_hidden):
        if not tag.decomposed:
            tag.decompose()


def _is_hidden(tag: Tag) -> bool:
    if tag.has_attr("hidden") or tag.get("role") == "navigation":
        return True
    if str(tag.get("aria-hidden", "")).lower() == "true":
        return True
    style = tag.get("style")
    return isinstance(style, str) and bool(_HIDDEN_STYLE_RE.search(style))


_END_OF_BLOCK = object()  # marks where a block-level element's content ends


class _Walker:
    """Collects text lines in document order, cutting a block at every heading."""

    def __init__(self, stack: list[tuple[int, str]] | None = None) -> None:
        self.blocks: list[Block] = []
        self.stack = list(stack or [])  # (level, heading text), outermost first
        self.lines: list[str] = []
        self.current: list[str] = []

    def walk(self, root: Tag) -> None:
        """Visit ``root``'s descendants in document order (iteratively: pages nest deeply)."""
        todo: list[object] = list(reversed(root.contents))
        while todo:
            node = todo.pop()
            if node is _END_OF_BLOCK:
                self.newline()
            elif isinstance(node, Tag):
                todo.extend(self._visit(node))
            elif type(node) is NavigableString:  # not a Comment, CData, Doctype, ...
                self.current.append(str(node))

    def _visit(self, tag: Tag) -> list[object]:
        """Handle one element; return what remains to visit, in reverse order."""
        name = tag.name
        if name in HEADING_TAGS:
            self._heading(int(name[1]), one_line(tag.get_text(" ")))
        elif name == "br":
            self.newline()
        elif name == "pre":
            self.newline()
            self.lines.append(clean_text(tag.get_text()).strip("\n"))
        elif name == "table" and _is_data_table(tag):
            self.newline()
            self.lines.extend(_table_lines(tag))
        elif name in BLOCK_TAGS:
            self.newline()
            return [_END_OF_BLOCK, *reversed(tag.contents)]
        else:
            return list(reversed(tag.contents))
        return []

    def _heading(self, level: int, text: str) -> None:
        if not text:
            return
        self.flush()
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        self.stack.append((level, text))
        self.lines.append(text)

    def newline(self) -> None:
        line = one_line("".join(self.current))
        if line:
            self.lines.append(line)
        self.current.clear()

    def flush(self) -> None:
        """End the current block."""
        self.newline()
        block = make_block("\n".join(self.lines), tuple(h for _, h in self.stack))
        if block is not None:
            self.blocks.append(block)
        self.lines.clear()


def _rows(table: Tag) -> list[Tag]:
    """Return the table's own rows (not those of tables nested in its cells)."""
    rows: list[Tag] = []
    for child in table.find_all(["tr", "thead", "tbody", "tfoot"], recursive=False):
        rows.extend([child] if child.name == "tr" else child.find_all("tr", recursive=False))
    return rows


def _is_data_table(table: Tag) -> bool:
    """Tell data tables from layout tables (nested tables, headings or long prose in cells)."""
    if table.get("role") == "presentation" or table.find(["table", *HEADING_TAGS]):
        return False
    return all(len(cell.get_text()) < 2000 for cell in table.find_all(["td", "th"]))


def _table_lines(table: Tag) -> list[str]:
    lines = []
    caption = table.find("caption", recursive=False)
    if caption and one_line(caption.get_text(" ")):
        lines.append(one_line(caption.get_text(" ")))
    for row in _rows(table):
        cells = [one_line(c.get_text(" ")) for c in row.find_all(["td", "th"], recursive=False)]
        if any(cells):
            lines.append(" | ".join(cells))
    return lines
