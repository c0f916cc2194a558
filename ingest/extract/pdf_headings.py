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

Pure functions over pdfminer's layout of one page.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from pdfminer.layout import LTChar, LTTextBox, LTTextLine

from kb.ingest.extract.pdf_outline import MAX_DEPTH, OutlineEntry

MAX_WORDS = 10  # a heading names its section in a few words
MAX_CHARS = 80
SIZE_RATIO = 1.15  # a heading's characters are this much larger than the body's, at least
_NUMBER = re.compile(
    r"^(?:(?P<arabic>\d{1,2}(?:\.\d{1,2}){0,4})\.?|(?P<roman>[IVX]{1,5})\.|"
    r"(?P<han>[一二三四五六七八九十]{1,3})、)\s*(?P<title>\S.*)$")
_ENDS_SENTENCE = re.compile(r"[.,;:!?。，；：！？]$")
_OPENS = re.compile(r"[A-Z\u00c0-\u00de\u3400-\u9fff]")


def numbered_headings(boxes: Iterable[LTTextBox], page: int) -> list[OutlineEntry]:
    """The numbered headings among a page's text lines, in layout order.

    Args:
        boxes: the page's text boxes (pdfminer's layout order).
        page: the page's number (1-based), given to each entry.

    Returns:
        One ``OutlineEntry`` per heading: its depth (the number's parts less one; 0 for a
        roman or Han number), the line as written, the page.
    """
    lines = [line for box in boxes for line in box if isinstance(line, LTTextLine)]
    fonts: Counter[tuple[float, bool]] = Counter()
    for line in lines:
        fonts.update(_font(c) for c in line if isinstance(c, LTChar))
    if not fonts:
        return []
    body_size, body_bold = fonts.most_common(1)[0][0]
    out = []
    for line in lines:
        text = " ".join(str(line.get_text()).split())
        found = _NUMBER.match(text)
        if not found or len(text) > MAX_CHARS or len(text.split()) > MAX_WORDS:
            continue
        title = found.group("title")
        if _ENDS_SENTENCE.search(title) or not _OPENS.match(title):
            continue
        chars = [_font(c) for c in line if isinstance(c, LTChar)]
        size = sum(s for s, _ in chars) / len(chars) if chars else 0.0
        bold = bool(chars) and all(b for _, b in chars)
        if size >= SIZE_RATIO * body_size or (bold and not body_bold):
            arabic = found.group("arabic")
            depth = arabic.count(".") if arabic else 0
            out.append(OutlineEntry(min(depth, MAX_DEPTH - 1), text, page))
    return out


def _font(char: LTChar) -> tuple[float, bool]:
    """A character's size (points, to a tenth) and whether its font is bold."""
    name = str(char.fontname).lower()
    return round(float(char.size), 1), "bold" in name or "black" in name or "heavy" in name
