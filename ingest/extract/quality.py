"""Does a page's extracted text read as text? A check against fonts without a Unicode map.

A PDF font whose glyph codes have no Unicode mapping (no ``ToUnicode`` map and no standard
encoding, as when a producer assigns subset codes 1, 2, 3... in order of use) yields codes,
not characters: pypdf turns them into control characters or letters shifted by the code
assignment, which would be indexed silently as gibberish, and a page of such CJK glyphs came
out empty and was refused as "no text layer". pdfminer.six reports each glyph it cannot map.

So a page is *unmapped* when at least ``MAX_UNMAPPED_SHARE`` of its glyphs have no Unicode
mapping: glyphs pdfminer could not map, plus control characters in pypdf's text when pypdf
read the page. A word-shape check (share of dictionary-like tokens) was measured too and
dropped: legal and tabular pages of real documents (a Federal Register page: 0.35; a Chinese
lab report's unit column: 0.0) fall as low as shifted codes do.
"""

from __future__ import annotations

import re

MAX_UNMAPPED_SHARE = 0.3  # of a page's glyphs; a few unmapped symbols (bullets, dingbats) pass

# What an unmapped glyph code becomes in pypdf's text: C0 and C1 controls but tab and newlines.
_CODE_RE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def control_codes(raw: str) -> int:
    """Control characters in pypdf's raw page text (unmapped glyph codes)."""
    return len(_CODE_RE.findall(raw))


def unmapped_share(unmapped: int, text: str) -> float:
    """Share of a page's glyphs without a Unicode mapping, in [0, 1].

    Args:
        unmapped: glyphs drawn without a mapping (not in ``text``).
        text: the page's text of mapped glyphs (whitespace and control characters are not
            counted).
    """
    mapped = len(_CODE_RE.sub("", text)) - sum(1 for ch in text if ch.isspace())
    total = mapped + unmapped
    return unmapped / total if total else 0.0


def unmapped(unmapped_glyphs: int, text: str) -> bool:
    """Whether a page's text is mostly glyph codes without a Unicode mapping."""
    return unmapped_share(unmapped_glyphs, text) >= MAX_UNMAPPED_SHARE
