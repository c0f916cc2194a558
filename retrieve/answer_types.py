"""What a question asks for, and whether a passage holds it (answer types; pure functions).

Answer types follow the classic question-typing of QA systems (Li & Roth, COLING 2002, coarse
classes reduced to those a passage can be checked for): ``date``, ``number``, ``person``,
``place``, ``name`` (a named thing: a company, a product, a system, a title); ``other`` asks
for nothing checkable. A *filler* of a type is a string that could answer it: a year or a date,
a number, a name; in Chinese text jieba's part-of-speech tags find persons (``nr``), places
(``ns``) and organisations (``nt``). A filler counts as evidence only when the question does
not already hold it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

from kb.textindex import STOPWORDS, has_cjk

AnswerType = Literal["date", "number", "person", "place", "name", "other"]
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SENTENCE = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])|\n+")

_EN_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"\b(when|what (year|date|day|month|century|decade|time|period)|"
                        r"which (year|date|day|month|century|decade)|how long ago|since when|"
                        r"in what (year|month|century))\b", re.I)),
    ("number", re.compile(r"\b(how (many|much|long|far|old|big|large|tall|high|often|fast|"
                          r"heavy|wide|deep)|what (percentage|percent|proportion|share|"
                          r"number|amount|rate|ratio|size|length|value|dose|price|cost|"
                          r"temperature|frequency|speed|mass|weight|height|depth|capacity|"
                          r"count|total|fraction|level|concentration))\b", re.I)),
    ("person", re.compile(r"\b(who|whom|whose|which person|what person|which (author|"
                          r"scientist|king|leader|president|founder))\b", re.I)),
    ("place", re.compile(r"\b(where|what is the capital|(what|which) (country|city|region|"
                         r"place|location|state|province|town|continent|island))\b", re.I)),
)
_EN_NAME: tuple[AnswerType, re.Pattern[str]] = ("name", re.compile(
    r"\b(what is (the|its|their) name|what was (the|its|their) name|what (is|was|are|were) "
    r"\w+( \w+)? called|which (company|companies|organi[sz]ation|journal|system|product|"
    r"software|program|programme|team|court|agency|university|school|firm|bank|brand|"
    r"newspaper|magazine|book|film|movie|song|album|project|language|tool|library|model)|"
    r"what (company|organi[sz]ation|journal|system|product|software|court|agency|brand)|"
    r"name of the)\b", re.I))
_ZH_NAME: tuple[AnswerType, re.Pattern[str]] = ("name", re.compile(
    r"名字|名称|叫什么|称为什么|哪家|哪个(公司|机构|组织|系统|软件|产品|团队|法院|大学|学校|品牌|项目)|"
    r"哪(本|份|部)"))
_ZH_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"哪一?年|哪一?天|何时|什么时候|几月|哪个月|何年|哪一?日|"
                        r"什么时间|日期是|年份|哪个年代|哪个世纪")),
    ("number", re.compile(r"多少|几[个位名次种条年天岁座家部项%]|多[大高长重远久快宽深]|"
                          r"百分之几|比例|比率|数量|人数|金额|占比")),
    ("person", re.compile(r"谁|哪位|何人|什么人|哪个人")),
    ("place", re.compile(r"哪里|哪儿|何地|在哪|首都|省会|哪个(国家|城市|地方|省|市|县|地区)|"
                         r"什么地方|哪座城市|哪国")),
    _ZH_NAME,
)
_EN_TYPES = (*_EN_TYPES, _EN_NAME)  # after the others: "whose name" asks for a person
_MONTHS = ("january february march april may june july august september october november "
           "december jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DATE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b|\b\d{1,2}(st|nd|rd|th) centur|"
                   r"\b(" + "|".join(_MONTHS) + r")\b\.? ?\d|\b\d{1,2} (" + "|".join(_MONTHS) +
                   r")\b|[0-9０-９零〇一二三四五六七八九十百]+\s*[年月日]|世纪|年代", re.I)
_NUMBER_SPAN = re.compile(r"\d+(?:[.,]\d+)*|\b(one|two|three|four|five|six|seven|eight|nine|"
                          r"ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|"
                          r"million|billion|dozen)\b|[零〇一二两三四五六七八九十百千万亿]+", re.I)
_PERSON_EN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.|[A-Z][a-z]+|"
                        r"(?:de|van|von|du|of|the)\s+[A-Z][a-z]+))+")
_PLACE_EN = re.compile(r"\b(in|at|from|near|to|of)\s+(the\s+)?[A-Z][a-z]+")
_NAME_EN = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+"
                      r"(?:\s+[A-Z][a-z]+)*")
_QUOTED = re.compile(r"[\"“《「『]([^\"”》」』]{2,40})[\"”》」』]")


def sentences(text: str) -> list[str]:
    """The passage cut at sentence ends (Latin and CJK punctuation) and line breaks."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def answer_type(query: str) -> AnswerType:
    """The expected answer type of a question (``other`` when none of the five)."""
    patterns = _ZH_TYPES if has_cjk(query) else _EN_TYPES
    for kind, pattern in patterns:
        if pattern.search(query):
            return kind
    if has_cjk(query):  # a Chinese question may still use English wh-words, and vice versa
        for kind, pattern in _EN_TYPES:
            if pattern.search(query):
                return kind
    return "other"


def fillers(text: str, kind: AnswerType) -> list[str]:
    """The strings of ``text`` that could fill answer type ``kind`` (empty for ``other``)."""
    if kind == "other":
        return []
    if kind == "date":
        return [m.group() for m in _DATE.finditer(text)]
    if kind == "number":
        return [m.group() for m in _NUMBER_SPAN.finditer(text)]
    out: list[str] = []
    if kind == "name":
        out += _QUOTED.findall(text)
    if _CJK_RUN.search(text):
        tags = {"person": ("nr", "nt", "nrt", "nrfg"), "place": ("ns", "nt"),
                "name": ("nz", "nt", "nrt", "eng")}[kind]
        out += [p.word for p in _posseg().cut(text) if p.flag in tags]
    pattern = {"person": _PERSON_EN, "place": _PLACE_EN, "name": _NAME_EN}[kind]
    return out + [m.group() for m in pattern.finditer(text)]


def novel_filler(text: str, kind: AnswerType, query: str) -> str | None:
    """The first filler of ``kind`` in ``text`` whose words the query does not all contain."""
    q = query.casefold()
    for f in fillers(text, kind):
        words = [w for w in re.findall(r"\w+", f.casefold()) if w not in STOPWORDS]
        if words and not all(w in q for w in words):
            return f
    return None


@lru_cache(maxsize=1)
def _posseg() -> Any:
    import jieba.posseg

    from kb.textindex import cut_words

    cut_words("初始化")  # jieba's dictionary, loaded once and quietly (kb.textindex)
    return jieba.posseg
