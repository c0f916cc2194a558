"""A PDF's outline (its bookmarks) as the heading path of its pages' text.

A PDF written by Word with "create bookmarks", by LaTeX with hyperref, or by LibreOffice
carries its headings as an outline: titles nested as the sections are, each pointing at its
page. kb reads them with pypdf and cuts a page's text where a section's title is written, so
a chunk holds one section and its citation names it ("Installation > Wiring, page 3"), as a
Markdown or DOCX document's do. A PDF without an outline is cut at its numbered headings
(``kb.ingest.extract.pdf_headings``), or else keeps one block per page: a heading guessed
from font sizes alone is as often a running header, an author's name or a page number.

Pure functions over the page's cleaned text and the outline's entries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from kb.ingest.extract.common import clean_text, make_block, one_line
from kb.types import Block

MAX_DEPTH = 6  # deeper outline levels nest under the sixth, as Markdown's headings stop at ######
MAX_ENTRIES = 5000  # an outline this long is an index, not a document's sections: read no more
MAX_TITLE_CHARS = 200  # a longer bookmark title is no heading
# a line's start, and the section number a bookmark may leave out: "1 ", "2.3. ", "IV. ",
# "A.1 " (not a bare capital: "A Study of ..." opens a sentence)
_LINE_START = (r"(?m)^[ \t]*(?:(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z](?:\.\d+)+\.?|[A-Z]\.)"
               r"[ \t]+)?")
_LINE_END = r"[ \t]*$"  # the title is the whole line (a body line may open with its words)
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z](?:\.\d+)+\.?)\s+(?=\S)")


class OutlineEntry(NamedTuple):
    """One bookmark: its nesting depth (0 for the top level), its title, its page (1-based)."""

    depth: int
    title: str
    page: int


def outline_entries(reader: Any) -> list[OutlineEntry]:
    """A pypdf ``PdfReader``'s outline, in document order ([] when it has none or is broken).

    Entries whose destination is no page of the file, or whose title is blank or longer than
    ``MAX_TITLE_CHARS``, are left out; depths past ``MAX_DEPTH`` count as the last.
    """
    out: list[OutlineEntry] = []

    def walk(items: Sequence[Any], depth: int) -> None:
        for item in items:
            if len(out) >= MAX_ENTRIES:
                return
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
                title = one_line(clean_text(str(item.title or ""), nfkc=True))
            except Exception:  # a destination or title pypdf cannot resolve
                continue
            if page is not None and page >= 0 and title and len(title) <= MAX_TITLE_CHARS:
                out.append(OutlineEntry(min(depth, MAX_DEPTH - 1), title, page + 1))

    try:
        walk(reader.outline, 0)
    except Exception:  # a malformed outline: the pages are read without it
        return []
    return out


def title_at(text: str, title: str, start: int = 0) -> int | None:
    """Where ``title`` is written in ``text`` at or after ``start``, or ``None``.

    Matched without regard to case or to the spaces between its characters ("Fire safety"
    against "FIRE SAFETY", 第二章 安装 against 第二章安装, a title wrapped over two lines); it
    must be the whole line, after a section number the bookmark leaves out ("1.2 Wiring"
    for the bookmark "Wiring", as LaTeX writes them), or without one the bookmark has and
    the page does not ("4 Discussion"): "Results were mixed" is no heading.
    """
    for name in dict.fromkeys((title, _NUMBERED.sub("", title))):  # "4 Discussion": also
        chars = [re.escape(c) for c in name if not c.isspace()]  # "Discussion" on the page
        if chars and (found := re.compile(_LINE_START + r"\s*".join(chars) + _LINE_END,
                                          re.IGNORECASE).search(text, start)):
            return found.start()
    return None


def page_blocks(text: str, page: int, entries: Sequence[OutlineEntry],
                path: tuple[str, ...]) -> tuple[list[Block], tuple[str, ...]]:
    """A page's cleaned text as blocks cut where its outline entries' titles are written.

    Args:
        text: the page's text, cleaned.
        page: its number (1-based).
        entries: the outline entries pointing at this page, in document order.
        path: the heading path in force at the page's start (from earlier pages).

    Returns:
        The blocks (the text before the first title keeps ``path``; each title opens a block
        under its section's path) and the path in force at the page's end. An entry whose
        title the page does not write opens its section at the page's start when no title
        before it on the page is written, else after the page's text (its path then holds
        from the next page: it does not take over the section before it).
    """
    incoming = path
    cuts: list[tuple[int, tuple[str, ...]]] = []  # (where a section opens, its path)
    at, seen = 0, False
    for entry in entries:
        found = title_at(text, entry.title, at)
        if found is not None:
            at, seen = found, True
        elif seen:  # not written after a title that is: it opens past this page's text
            at = len(text)
        path = (*path[:entry.depth], entry.title)
        if cuts and cuts[-1][0] == at:  # entries opening at one place: the last one's path
            cuts[-1] = (at, path)  # (a chapter and its first section at the page's top)
        else:
            cuts.append((at, path))
    spans = ([(0, incoming)] if not cuts or cuts[0][0] > 0 else []) + cuts
    blocks = []
    for i, (start, heading_path) in enumerate(spans):
        end = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        block = make_block(text[start:end], heading_path=heading_path, page=page)
        if block is not None:
            blocks.append(block)
    return blocks, path
