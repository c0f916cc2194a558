"""Reference lists and citation boilerplate: the share of a passage that reads as one.

A passage cut from a bibliography ("^ Lee, S. (8 April 2014). "Title". site.com. Retrieved
2014-07-01.") holds dates, names and the query's words without answering anything; the judge
(``kb.retrieve.judge``) reads ``reference_share`` as one of its features. Computed from the
text alone at query time, English and Chinese cues alike (CJK reference lists use 《》 titles
and 检索于 / 存档 / 原始内容 notes).
"""

from __future__ import annotations

import re

# a segment longer than this (a whole paragraph on one line) is judged sentence by sentence
LONG_SEGMENT_CHARS = 400
# a year and a quoted title make an entry only when little else is written beside them
# (news prose quotes people and names years; "Title". Site. 2014. does not say more);
# a CJK character counts twice (one holds about as much as two Latin letters)
TITLED_REST_CHARS = 60

_MARKER = re.compile(
    r"\b(Retrieved|Accessed)( on)? (\d|[A-Z][a-z]+ \d)|\bArchived from\b|\bRetrieved from\b"
    r"|\b[Dd][Oo][Ii]\s*:|\bISBN\b|\bISSN\b|\bpp?\.\s*\d|\b[Vv]ol\.\s*\d"
    r"|https?://|\bwww\.|\b[\w-]+\.(com|org|net|edu|gov|io)\b|\[\s*edit\s*\]|^\s*\^"
    r"|检索于|存档|原始内容|访问日期|参考资料|失效链接|失效連結")
_YEAR = re.compile(r"(?<!\d)(1[5-9]|20)\d\d(?!\d)")
_TITLE = re.compile(r"\"[^\"]{3,}\"|“[^”]{3,}”|《[^》]+》|«[^»]{3,}»")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


def segments(text: str) -> list[str]:
    """The passage's lines, a line longer than ``LONG_SEGMENT_CHARS`` cut into sentences."""
    out: list[str] = []
    for line in text.splitlines():
        if len(line) > LONG_SEGMENT_CHARS:
            out.extend(_SENTENCE.split(line))
        else:
            out.append(line)
    return [s.strip() for s in out if s.strip()]


def is_reference(segment: str) -> bool:
    """The segment reads as a bibliography entry or citation note.

    True when it holds a citation marker ("Retrieved 2014-07-01", "Archived from", "doi:",
    "ISBN", "pp. 12", "Vol. 3", a URL or domain name, "[edit]", a leading "^", 检索于, 存档,
    原始内容 ...), or a year and a quoted title ("..." / “...” / 《...》 / «...») with at most
    ``TITLED_REST_CHARS`` characters beside the title (a CJK character counts two). Neither
    "et al." nor a lower-case "retrieved" is a marker: academic prose cites in its sentences
    ("Frone et al. (1992) found ...") and says what it retrieved.
    """
    if _MARKER.search(segment):
        return True
    rest = _TITLE.sub("", segment)
    width = len(rest) + len(_CJK.findall(rest))
    return bool(_YEAR.search(segment) and rest != segment and width <= TITLED_REST_CHARS)


def reference_share(text: str) -> float:
    """Share of the passage's characters in reference-like segments, in [0, 1].

    Args:
        text: the passage (any language; empty gives 0).

    Returns:
        Characters of the segments ``is_reference`` accepts over the characters of all
        segments (``segments``: lines, long lines cut into sentences); 0.0 for a passage
        with no text.
    """
    parts = segments(text)
    total = sum(len(s) for s in parts)
    if not total:
        return 0.0
    return sum(len(s) for s in parts if is_reference(s)) / total
