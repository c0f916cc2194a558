"""PDF tables: a ruled table's rows as lines of cells, not one cell per line.

pdfminer.six's layout analysis reads a table cell by cell: a financial report's row
"营业收入（元） 4,755,785.11 5,699,227.63 -16.55%" came out as four lines, its change column
forty lines further down the page, so no chunk held a figure beside what it measures.
pdfplumber's table finder (Singer-Vine, after Anssi Nurminen's thesis "Algorithmic
extraction of data in tables in PDF documents", 2013) reads the cells a table's ruling lines
enclose; each table found is written as a Markdown table, as notes write them: one line per
row, ``| a | b |``, the first row its header over a ``| --- |`` rule (``kb.retrieve.tables``
reads them so). Only ruled tables are found (the "lines" strategy): a table drawn without lines
stays as pdfminer reads it.

A framed paragraph or a one-column list is no table: a table must have ``MIN_ROWS`` rows and
``MIN_COLUMNS`` columns holding text.

A table running onto the next page without repeating its header row (``continued``) is given
its header there, so its rows on that page are not read under a data row taken for one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from pdfminer.layout import LTCurve, LTPage, LTRect, LTTextBox, LTTextLine

MIN_ROWS = 2  # rows holding text
MAX_CELL_CHARS = 300  # a cell this long is a column of prose in a frame, not a table's
WORD_MIN_CHARS = 4  # words this long are checked whole in a cell (``holds_its_text``) ...
MIN_WORDS_WHOLE = 0.8  # ... and this share of them must be
CID = re.compile(r"\(cid:\d+\)")  # pdfminer's text for a glyph without a Unicode mapping
# ruling segments a page must draw across and down before it is searched: two rows and two
# columns take three of each (the finder reads every character, so a page with only a
# border's frame, or rules under its header and above its footer, is not searched)
MIN_RULINGS = 3
RULING_SLACK_PT = 1.0  # a segment this far off level (or plumb) is still across (or down)
MIN_COLUMNS = 2  # columns holding text in some row
# a table continues the last one of the page before when its columns stand where that one's
# did (within COLUMN_SLACK_PT each edge) and at most LINES_BETWEEN lines of text (a running
# header, a footer, a page number) stand between the two
COLUMN_SLACK_PT = 2.0
LINES_BETWEEN = 4
EDGE_SHARE = 0.2  # ... and the one ends in its page's lowest fifth, the other starts in the top
NUMBER_CELL = re.compile(r"[\d\W]*\d[\d\W]*")  # no letters, a digit: "4,755", "-16.55%", "€ 300"
# Chinese and Japanese text: Han, kana, CJK and full-width punctuation (no spaces between words;
# Korean spaces its words, so Hangul is not here)
CJK = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60]")


class PageTable(NamedTuple):
    """A table found on a page.

    Attributes:
        bbox: ``(x0, y0, x1, y1)`` in pdfminer's coordinates (points, origin at the page's
            bottom left, as ``LTTextLine.x0`` / ``y0``).
        text: its rows as a Markdown table (``rows_text``).
        rows: its cells, each on one line (``cell_text``), the first row its header.
        edges: its columns' left edges and the last one's right edge, in points from the
            page's left.
        lines_above: the page's text lines above its top; ``lines_below``: below its bottom.
        page_height: the page's height in points (0 when unknown).
    """

    bbox: tuple[float, float, float, float]
    text: str
    rows: tuple[tuple[str, ...], ...] = ()
    edges: tuple[float, ...] = ()
    lines_above: int = 0
    lines_below: int = 0
    page_height: float = 0.0


def page_tables(page: Any, layout: LTPage) -> list[PageTable]:
    """The ruled tables of a pdfplumber ``page`` whose pdfminer layout is ``layout``.

    A page that draws fewer than ``MIN_RULINGS`` segments across, or down (``rulings``),
    has no ruled table, and is not searched.

    Args:
        page: a ``pdfplumber.page.Page``.
        layout: its ``page.layout``.

    Returns:
        The tables in the finder's order (top to bottom), each with ``MIN_ROWS`` rows and
        ``MIN_COLUMNS`` columns holding text at least.
    """
    if min(rulings(layout)) < MIN_RULINGS:
        return []
    mb_x0, mb_top = float(page.mediabox[0]), float(page.mediabox[1])
    height = float(page.height)
    lines = [line for box in layout if isinstance(box, LTTextBox) for line in box
             if isinstance(line, LTTextLine)]
    out = []
    for table in page.find_tables():
        rows = tuple(tuple(cell_text(c) for c in row) for row in table.extract())
        text = _markdown(rows)
        if not text:
            continue
        x0, top, x1, bottom = (float(v) for v in table.bbox)
        y0, y1 = height - (bottom - mb_top), height - (top - mb_top)
        edges = (*(float(c.bbox[0]) - mb_x0 for c in table.columns), x1 - mb_x0)
        found = PageTable((x0 - mb_x0, y0, x1 - mb_x0, y1), text, rows, edges,
                          sum((ln.y0 + ln.y1) / 2 > y1 for ln in lines),
                          sum((ln.y0 + ln.y1) / 2 < y0 for ln in lines), height)
        inside = [str(ln.get_text()) for ln in lines if table_of(ln, [found]) is not None]
        if holds_its_text(rows, inside):
            out.append(found)
    return out


def continued(before: PageTable, table: PageTable) -> PageTable:
    """``table`` with the header of ``before`` when it continues that table.

    ``table`` is the first table of its page, ``before`` the last of the page before; the
    page may not have repeated the header row.

    It continues it when it has as many columns, each edge within ``COLUMN_SLACK_PT`` of
    ``before``'s, ``before`` ends in its page's lowest ``EDGE_SHARE`` and ``table`` starts in
    its page's top ``EDGE_SHARE`` (a table ending mid-page is done: the next page's table of
    the same widths is another), and at most ``LINES_BETWEEN`` lines of text stand below
    ``before`` and above ``table`` together. Its first row is then ``before``'s header
    repeated (left as it is), or a data row: unless its cells' kinds (empty, a number, text)
    match the header's more than those of ``before``'s last row, which makes it a table of
    its own with its own header. A data row is read under the header a row of ``before`` is
    read under: its first row with every cell filled, within its first three (a title row
    spanning the columns is no header), else its first.

    Returns:
        ``table`` itself, or a copy whose ``rows`` and ``text`` start with the header.
    """
    if not before.rows or not table.rows or len(before.edges) != len(table.edges) or any(
            abs(a - b) > COLUMN_SLACK_PT for a, b in zip(before.edges, table.edges, strict=True)
    ) or before.lines_below + table.lines_above > LINES_BETWEEN or not (
            before.bbox[1] <= EDGE_SHARE * before.page_height
            and table.bbox[3] >= (1 - EDGE_SHARE) * table.page_height):
        return table
    header = next((row for row in before.rows[:3] if all(row)), before.rows[0])
    first = table.rows[0]
    if first == header or _alike(first, header) > _alike(first, before.rows[-1]):
        return table
    rows = (header, *table.rows)
    return table._replace(rows=rows, text=_markdown(rows))


def _alike(row: Sequence[str], other: Sequence[str]) -> int:
    """How many cells of two rows are of one kind: empty, a number, or text."""
    def kind(cell: str) -> str:
        return "" if not cell else "n" if NUMBER_CELL.fullmatch(cell) else "t"

    return sum(kind(a) == kind(b) for a, b in zip(row, other, strict=False))


def holds_its_text(rows: Sequence[Sequence[str]], lines: Sequence[str]) -> bool:
    """Whether a table's cells hold the text pdfminer reads inside its box, as a table's do.

    Text drawn over ruling that is no table's fails: graph paper's 5 mm grid cuts words into
    cells ("Me | asur | eme"), so fewer than ``MIN_WORDS_WHOLE`` of the words of
    ``WORD_MIN_CHARS`` characters or more (pdfminer's lines, split at spaces) stand whole in a
    cell; a frame around columns of prose makes a cell of ``MAX_CELL_CHARS`` characters or
    more (a table's cells hold figures, names and short phrases).

    Args:
        rows: the table's cells, each on one line (``cell_text``).
        lines: the text of pdfminer's lines inside the table's box.
    """
    cells = [c for row in rows for c in row if c]
    if any(len(c) >= MAX_CELL_CHARS for c in cells):
        return False
    words = [w for line in lines for w in CID.sub("", line).split() if len(w) >= WORD_MIN_CHARS]
    whole = sum(any(w in c for c in cells) for w in words)
    return not words or whole >= MIN_WORDS_WHOLE * len(words)


def rulings(layout: LTPage) -> tuple[int, int]:
    """The straight segments a page draws: ``(across, down)``.

    Each side of a line, rectangle or path (``LTCurve``, which ``LTLine`` and ``LTRect``
    are) counts once when it runs level (across) or plumb (down), within
    ``RULING_SLACK_PT``; a page's tables are drawn with them.
    """
    across = down = 0
    for item in layout:
        if not isinstance(item, LTCurve):
            continue
        pts = list(item.pts)
        ends = [*pts[1:], pts[0]] if isinstance(item, LTRect) else pts[1:]
        for (x0, y0), (x1, y1) in zip(pts, ends, strict=False):
            dx, dy = abs(x1 - x0), abs(y1 - y0)
            across += dy <= RULING_SLACK_PT < dx
            down += dx <= RULING_SLACK_PT < dy
    return across, down


def rows_text(rows: Sequence[Sequence[str | None]]) -> str:
    r"""A table's rows as a Markdown table, its first row the header ("" when it is no table).

    ``| a | b |`` lines with the ``| --- |`` rule under the first row, as notes write tables
    (``kb.retrieve.tables`` reads a cell asked, and gives a continuation chunk its header).
    A cell's wrapped lines are joined (without a space between two CJK characters) and its
    ``|`` escaped (``\\|``); a merged cell's continuation (``None``) is blank, keeping the
    columns in place; a row without text is left out.
    """
    return _markdown([[cell_text(cell) for cell in row] for row in rows])


def _markdown(rows: Sequence[Sequence[str]]) -> str:
    """``rows_text`` of cells already on one line (``cell_text``)."""
    lines = []
    filled_columns: set[int] = set()
    for row in rows:
        cells = [cell.replace("|", "\\|") for cell in row]
        if any(cells):
            lines.append("| " + " | ".join(cells) + " |")
            filled_columns.update(i for i, cell in enumerate(cells) if cell)
            if len(lines) == 1:
                lines.append("|" + " --- |" * len(cells))
    if len(lines) - 1 < MIN_ROWS or len(filled_columns) < MIN_COLUMNS:
        return ""
    return "\n".join(lines)


def cell_text(cell: str | None) -> str:
    r"""One cell's text on one line: "损\\n益" -> "损益", "net\\nincome" -> "net income"."""
    out = ""
    for piece in CID.sub("", cell or "").split("\n"):
        piece = " ".join(piece.split())
        if not piece:
            continue
        glued = bool(out and CJK.match(out[-1]) and CJK.match(piece[0]))
        out = f"{out}{'' if glued or not out else ' '}{piece}"
    return out


def table_of(line: LTTextLine, tables: Sequence[PageTable]) -> int | None:
    """The index of the table whose box holds ``line``'s centre, or ``None``."""
    x = (line.x0 + line.x1) / 2
    y = (line.y0 + line.y1) / 2
    for i, table in enumerate(tables):
        x0, y0, x1, y1 = table.bbox
        if x0 <= x <= x1 and y0 <= y <= y1:
            return i
    return None
