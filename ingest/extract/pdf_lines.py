"""A PDF page's text from pdfminer's text boxes: CJK wraps joined, ruled tables in place.

``page_text`` is what ``kb.ingest.extract.pdf`` indexes for a page laid out by pdfminer.six.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pdfminer.layout import LTTextBox, LTTextLine

from kb.ingest.extract.pdf_tables import CID, CJK, PageTable, table_of

_QUOTES = re.compile("[\u2014\u2018-\u201d\u2026]")  # dashes, curly quotes: either script
_ENDS_SENTENCE = frozenset("。！？!?")  # a break after one splits no word: kept
WRAP_SLACK_CHARS = 2.0  # a line ending this many average characters short of the edge is full
WRAP_MIN_CHARS = 10  # a wrapped line holds this many characters at least (a cell, an item: less)
WRAP_MIN_WIDTH = 0.6  # ... and is this share of the page's widest line at least
WRAP_INDENT_CHARS = 4.0  # a first line indented this much (two full-width characters) at most
WRAP_GAP_LINES = 1.5  # the space between a line and the next, in line heights, at most


def page_text(boxes: Sequence[LTTextBox], tables: Sequence[PageTable] = ()) -> str:
    r"""A page's text boxes in layout order, a CJK paragraph's wrapped lines joined.

    A line inside a table's box is left out; the table's rows stand, between blank lines,
    where its first line was (after the text when no line of it was in a text box).

    Chinese and Japanese put no space between words, so a line break the page's width put
    inside a paragraph splits a word in two ("织\n造": 织造 unfound, a sentence cut). A line
    loses its break when it wraps a paragraph:

    * a CJK character on one side of the break, and a CJK character, a digit
      ("于2018年1月16\n日"), a curly quote or a dash on the other; a sentence's end keeps it;
    * the line is long: ``WRAP_MIN_CHARS`` characters or more, and ``WRAP_MIN_WIDTH`` of the
      page's widest line or wider (a table's cells, a list's items, a contents page: not);
    * it is full: it reaches, within ``WRAP_SLACK_CHARS`` of its average character width,
      the right edge of the lines starting where it starts (its column);
    * the next line is right below it (``WRAP_GAP_LINES`` line heights apart at most) and
      starts where it starts, or up to ``WRAP_INDENT_CHARS`` characters to its left (after
      an indented first line); one starting further right opens a paragraph.

    Latin text keeps every break (it separates words already).
    """
    placed: dict[int, LTTextLine] = {}  # a table -> the first of its lines
    lines = []
    for line in (line for box in boxes for line in box if isinstance(line, LTTextLine)):
        if (table := table_of(line, tables)) is None:
            lines.append(line)
        elif table not in placed:
            placed[table] = line
            lines.append(line)
    tabled = {id(line): tables[i].text for i, line in placed.items()}
    right: dict[int, float] = {}  # a line's start, to the point, -> the furthest line end
    for line in lines:
        if id(line) not in tabled:
            right[round(line.x0)] = max(right.get(round(line.x0), 0.0), line.x1)
    widest = max((line.x1 - line.x0 for line in lines if id(line) not in tabled), default=0.0)
    out = []
    for line, after in zip(lines, [*lines[1:], None], strict=True):
        if id(line) in tabled:
            out.append(f"\n{tabled[id(line)]}\n\n")
            continue
        if after is not None and id(after) in tabled:  # a table follows: no paragraph wraps
            after = None
        text = CID.sub("", str(line.get_text()))
        body = text.rstrip("\n")
        ends, starts = body[-1:], str(after.get_text()).lstrip()[:1] if after else ""
        if after is not None and _wraps(ends, starts) and len(body.strip()) >= WRAP_MIN_CHARS \
                and line.x1 - line.x0 >= WRAP_MIN_WIDTH * widest:
            char = (line.x1 - line.x0) / max(len(body), 1)
            edge = max(x1 for x0, x1 in right.items()
                       if abs(x0 - line.x0) <= WRAP_SLACK_CHARS * char + 1)
            shift = after.x0 - line.x0
            gap = line.y0 - after.y1  # the next line right below
            if line.x1 >= edge - WRAP_SLACK_CHARS * char and (
                    -WRAP_INDENT_CHARS * char <= shift <= 0.5 * char) and (
                    -0.5 * line.height <= gap <= WRAP_GAP_LINES * line.height):
                text = body
        out.append(text)
    out.extend(f"\n{table.text}\n" for i, table in enumerate(tables) if i not in placed)
    return "".join(out)


def _wraps(ends: str, starts: str) -> bool:
    """Whether a break between these two characters may be a CJK paragraph's wrap."""
    def joinable(c: str) -> bool:
        return bool(CJK.match(c) or _QUOTES.match(c)) or c.isdigit()

    return bool(ends and starts and ends not in _ENDS_SENTENCE and joinable(ends)
                and joinable(starts) and (CJK.match(ends) or CJK.match(starts)))
