"""Numbered section headings of a PDF without an outline, as outline entries.

A PDF written without bookmarks (reportlab, many "Save as PDF" exports) has no outline for
``kb.ingest.extract.pdf_outline`` to cut its pages by, and its chunks carried no heading path:
a trial's grant report, its sections "1. Summary" to "6. Risks and next steps" set in 18-point
bold over 10-point text, was cited as "page 1". Headings are not guessed from font sizes
alone: in a journal article those are as often running headers, authors' names and page
numbers. A line is a heading only when it is **numbered** as sections are ("1. Summary",
"2.3 Wiring", "IV. Results", "一、项目概况"), short (``MAX_WORDS`` words, ``MAX_CHARS``
characters, no sentence's end), opens with a capital or a Han character, and is set apart from
the page's body text: larger (``SIZE_RATIO``) or bold where the body is not. Its depth is its
number's (``2.3``: the second level). A numbered list in the body's font is no heading.

Across the document (``in_sequence``) the numbers must run as sections do: 1, 2, 2.1, 2.2, 3
(or start over at 1, as a report's chapters do), two headings at least, no title written on
two pages (a running header) and none ending in a number (a contents line, "3 Results 7"); a
date ("15 March 2024"), an address ("12 Main Street") or an author's initial ("I. Goodfellow")
is out of sequence. A line inside a ruled table is a cell, never a heading.

Pure functions over pdfminer's layout of one page, then over the document's candidates.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from pdfminer.layout import LTChar, LTTextBox, LTTextLine

from kb.ingest.extract.common import clean_text, one_line
from kb.ingest.extract.pdf_outline import MAX_DEPTH, OutlineEntry
from kb.ingest.extract.pdf_tables import PageTable, table_of

MAX_WORDS = 10  # a heading names its section in a few words
MAX_CHARS = 80
SIZE_RATIO = 1.15  # a heading's characters are this much larger than the body's, at least
_NUMBER = re.compile(
    r"^(?:(?P<arabic>\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+|(?P<roman>[IVXLC]{1,5})\.\s+|"
    r"(?P<han>[一二三四五六七八九十]{1,3})、\s*)(?P<title>\S.*)$")
_ENDS = re.compile(r"[.,;:!?。，；：！？]$|\d$")  # a sentence's end; a contents line's page
_HAN = re.compile(r"[\u3400-\u9fff\u3040-\u30ff]")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_HAN_DIGITS = "一二三四五六七八九"


def numbered_headings(boxes: Iterable[LTTextBox], page: int,
                      tables: Sequence[PageTable] = ()) -> list[OutlineEntry]:
    """The candidate numbered headings among a page's text lines, in layout order.

    Args:
        boxes: the page's text boxes (pdfminer's layout order).
        page: the page's number (1-based), given to each entry.
        tables: the page's ruled tables (their lines are cells).

    Returns:
        One ``OutlineEntry`` per candidate: its depth (the number's parts less one; 0 for a
        roman or Han number), the line cleaned as the page's text is, the page. The
        document's candidates go through ``in_sequence``.
    """
    lines = [line for box in boxes for line in box
             if isinstance(line, LTTextLine) and table_of(line, tables) is None]
    fonts: Counter[tuple[float, bool]] = Counter()
    for line in lines:
        fonts.update(_font(c) for c in line if isinstance(c, LTChar))
    if not fonts:
        return []
    body_size, body_bold = fonts.most_common(1)[0][0]
    out = []
    for line in lines:
        text = one_line(clean_text(str(line.get_text()), nfkc=True))  # as the page's text
        found = _NUMBER.match(text)
        if not found or len(text) > MAX_CHARS or len(text.split()) > MAX_WORDS:
            continue
        title = found.group("title")
        if _ENDS.search(title) or not (title[0].isupper() or _HAN.match(title)):
            continue
        chars = [_font(c) for c in line if isinstance(c, LTChar)]
        size = sum(s for s, _ in chars) / len(chars) if chars else 0.0
        bold = bool(chars) and all(b for _, b in chars)
        if size >= SIZE_RATIO * body_size or (bold and not body_bold):
            arabic = found.group("arabic")
            depth = arabic.count(".") if arabic else 0
            out.append(OutlineEntry(min(depth, MAX_DEPTH - 1), text, page))
    return out


def in_sequence(candidates: Sequence[OutlineEntry]) -> list[OutlineEntry]:
    """The candidates (a document's, in order) whose numbers run as sections do.

    One numbering style per document (arabic, roman or Han), the one keeping most: each
    kept heading is the next at some level of the last kept one (2 after 1.3, 1.4 after
    1.3), or its first subsection (2.1 after 2), or opens at 1 again (a new chapter's
    sections). A title written on two pages is a running header. Fewer than two kept: none.
    """
    pages: dict[str, set[int]] = {}
    for c in candidates:
        pages.setdefault(c.title, set()).add(c.page)
    keyed = [(k, c) for c in candidates
             if len(pages[c.title]) == 1 and (k := _number(c.title)) is not None]
    best: list[OutlineEntry] = []
    for style in dict.fromkeys(kind for (kind, _), _ in keyed):
        out: list[OutlineEntry] = []
        last: tuple[int, ...] = ()
        for (kind, number), entry in keyed:
            level = len(number) - 1
            follows = number[:level] == last[:level] and len(last) > level and (
                number[level] == last[level] + 1)
            if kind == style and (follows or number == (*last, 1) or number == (1,)):
                out.append(entry)
                last = number
        best = out if len(out) > len(best) else best
    return best if len(best) >= 2 else []


def _number(title: str) -> tuple[str, tuple[int, ...]] | None:
    """A heading's numbering style and number: ("arabic", (2, 3)) for "2.3 Wiring"."""
    found = _NUMBER.match(title)
    if found is None:
        return None
    if arabic := found.group("arabic"):
        return "arabic", tuple(int(p) for p in arabic.split("."))
    if roman := found.group("roman"):
        values = [_ROMAN[c] for c in roman]
        return "roman", (sum(-v if i + 1 < len(values) and v < values[i + 1] else v
                             for i, v in enumerate(values)),)
    han = found.group("han")
    tens, _, units = han.rpartition("十")
    if "十" not in han:
        return ("han", (_HAN_DIGITS.index(han) + 1,)) if len(han) == 1 else None
    return "han", ((_HAN_DIGITS.index(tens) + 1 if tens else 1) * 10
                   + (_HAN_DIGITS.index(units) + 1 if units else 0),)


def _font(char: LTChar) -> tuple[float, bool]:
    """A character's size (points, to a tenth) and whether its font is bold."""
    name = str(char.fontname).lower()
    return round(float(char.size), 1), "bold" in name or "black" in name or "heavy" in name
