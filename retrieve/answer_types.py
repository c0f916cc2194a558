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
from collections.abc import Sequence
from typing import Literal

import numpy as np

from kb.retrieve.crosslang import HAN
from kb.retrieve.numbers import in_range
from kb.retrieve.postags import posseg
from kb.retrieve.rows import with_headers
from kb.retrieve.terms import TRANSLATIONS_SEARCHED, Term, coverage, is_stop, passage_terms
from kb.retrieve.units import (
    DURATIONS,
    MONTHS,
    ZH_HAO_ASKED,
    ZH_HAO_DAY,
    ZH_MEASURE,
    ZH_TIME_ASKED,
    asked_date_grain,
    asked_units,
    dates_in_grain,
    declared_units,
    measure_by_noun,
    with_unit,
)
from kb.store.textindex import STOPWORDS, has_cjk, normalise_word

AnswerType = Literal["date", "number", "person", "place", "name", "other"]
_SENTENCE = re.compile("".join(rf"(?<!\b{a}\.)" for a in "Dr Mr Mrs Ms Mx Prof St Jr".split())
                       + r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])|\n+")  # "Dr. Lee" ends none

# A sum asked outright: "What was Acme's revenue in 2018?" ("Quillmark Robotics' revenue": a
# name of up to four words before the possessive), "What is the registered capital of
# the subsidiary?", "what were its net sales" (the noun closes the phrase: "sales channels" asks
# for no sum; "the capital of France" is a city)
_EN_MONEY_ASKED = (r"what (?:(?:is|was|are|were) )?(?:the |its |their |(?:[\w.&-]+ ){0,3}"
                   r"[\w.&-]+(?:['’]s|s['’]) )?"
                   r"(?:(?:net|gross|operating|annual|quarterly|total|registered|market|estimated|"
                   r"average|expected) ){0,2}(?:revenues?|profits?|income|sales|turnover|earnings|"
                   r"budget|valuation|capitali[sz]ation|dividends?|losses|loss|(?:registered|"
                   r"share|paid-in|paid-up|working|authori[sz]ed) capital)"
                   r"(?=\s*(?:$|[?,.;:]|(?:of|in|for|at|from|during|over|by|last|this|since|"
                   r"before|after)\b))")
_EN_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"\b(when|what (year|date|day|month|century|decade|time|period)|"
                        r"which (year|date|day|month|century|decade)|how long ago|since when|"
                        r"in what (year|month|century))\b", re.I)),
    # "what price", "what is the price", "what was the average age" ask for a number
    ("number", re.compile(r"\b(how (many|much|long|far|old|big|large|tall|high|often|fast|"
                          r"heavy|wide|deep)|what( (is|was|are|were) (the|its|their|his|her))?"
                          r"( (average|estimated|total|approximate|current|maximum|minimum|"
                          r"typical|annual|monthly|daily|expected|median|mean))? "
                          r"(percentage|percent|proportion|share|number|amount|rate|ratio|size|"
                          r"length|value|dose|price|cost|fee|temperature|frequency|speed|mass|"
                          r"weight|height|depth|capacity|count|total|fraction|level|age|"
                          r"concentration|population|salary|budget|revenue|income|distance))\b|"
                          + _EN_MONEY_ASKED, re.I)),
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
    ("date", re.compile(r"哪一?年|哪一?天|何时|什么时候|几月|哪个月|何年|哪一?日|什么时间|日期是|"
                        rf"年份|哪个年代|哪个世纪|{ZH_TIME_ASKED}|{ZH_HAO_ASKED}")),
    ("number", re.compile(r"多少|几[个位名次种条年天岁座家部项%]|多[大高长重远久快宽深]|"
                          r"百分之几|比例|比率|数量|人数|金额|占比")),
    ("person", re.compile(r"谁|哪位|何人|什么人|哪个人")),
    ("place", re.compile(r"哪里|哪儿|何地|在哪(?![些个一天年月日])|首都|省会|"
                         r"哪个(国家|城市|地方|省|市|县|地区)|什么地方|哪座城市|哪国")),
    _ZH_NAME,
)
_EN_TYPES = (*_EN_TYPES, _EN_NAME)  # after the others: "whose name" asks for a person
# A date, a year ("in 911", "79 AD"), a century, a time of day or season (夜间, "at night")
_DATE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b|\b\d{1,2}(st|nd|rd|th) centur|"
                   r"\bin [1-9][0-9]{2}\b(?!\s+[a-z]{2,}s\b)|\b(AD|A\.D\.|c\.) ?[1-9][0-9]{0,3}\b|"
                   r"\b[1-9][0-9]{0,3} ?(AD|BC|BCE|CE|A\.D\.|B\.C\.)(?!\w)|"
                   r"\b(" + "|".join(MONTHS) + r")\b\.? ?\d|\b\d{1,2} (" + "|".join(MONTHS) +
                   r")\b|[0-9０-９零〇一二两三四五六七八九十百千万亿]+\s*[年月日]|"
                   r"世纪|年代|"
                   r"\b(at night|in the (morning|evening|afternoon)|(during|in) (the )?(spring|"
                   r"summer|autumn|fall|winter))\b|"
                   r"夜间|夜晚|晚上|白天|日间|早上|清晨|凌晨|黄昏|傍晚|"
                   r"[春夏秋冬]季|[春夏秋冬]天|"
                   # a clock time or a weekday: "at 9:00", "3 pm", "下午3点", "周一", "Monday"
                   r"\b\d{1,2}:\d{2}\b|\b\d{1,2} ?[ap]\.?m\b\.?|"
                   r"[0-9零一二两三四五六七八九十]+\s*点|" + ZH_HAO_DAY + "|"
                   r"[上中下]午|(星期|礼拜|周)[一二三四五六日天]|\b(mon|tues|wednes|thurs|fri|"
                   r"satur|sun)day\b", re.I)
# Numbers that write a year or a date, not a count: "in 1998", "2018年4月10日", "May 3"
# (a bare 19xx or 20xx too, unless a plural noun follows it: "2048 GPUs" is a count)
_YEAR_OR_DATE = re.compile(r"\b(?:(?:in|since|until|till|during|before|after)\s+)?"
                           r"(?:19[0-9]{2}|20[0-9]{2})\b(?![.,]?\d)(?!\s+[a-z]{2,}s\b)|"
                           r"[0-9０-９零〇一二三四五六七八九十]+\s*[年月日号]"
                           r"(?!\s*(?:多|以[上下内]|之[内间]|左右))|\b(?:" + "|".join(MONTHS) +
                           r")\.? ?\d{1,2}\b|\b\d{1,2} (?:" + "|".join(MONTHS) + r")\b", re.I)
# A calendar year written with 年 ("2011年", "公元215年"): a date, never a duration of years
_CALENDAR_YEAR = re.compile(r"(?:公元前?|西元前?)[0-9０-９零〇一二三四五六七八九十百千]+\s*年|"
                            r"(?<![0-9０-９])(?:1[0-9]{3}|20[0-9]{2})\s*年(?!代|间|来|多|以)")
# (digits glued to a letter are a name, no quantity: "ThinkPad X1", "v2")
NUMBER_SPAN = re.compile(r"(?<![A-Za-z])\d+(?:[.,]\d+)*|\b(one|two|three|four|five|six|seven|"
                          r"eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|"
                          r"million|billion|dozen)\b|[零〇一二两三四五六七八九十百千万亿]+", re.I)
# nothing after a number but a stop or its end: no unit, no counter ("约12.57。", "| 12.57 |")
_BARE = re.compile(r"\s*(?:[，,。；;：:）)|\]]|[.!?](?!\d)|$)")
HEADING = re.compile(r"#{1,6}\s")  # a Markdown heading line, as chunks keep their headings


def _bare(text: str, m: re.Match[str]) -> bool:
    """Whether number ``m`` stands alone (a formula's result, a table's cell).

    Arabic digits followed by nothing but a stop; no citation ("[1]"), ordinal ("第5") or list
    number ("1. 地理位置").
    """
    first = m.group()[:1]
    return (first.isascii() and first.isdigit() and _BARE.match(text, m.end()) is not None
            and text[max(0, m.start() - 1):m.start()] not in ("[", "［", "第")
            and not ((m.start() == 0 or text[m.start() - 1] == "\n")
                     and text[m.end():m.end() + 1] in (".", "、")))
# Two or more capitalised words; at a sentence's start a first word that is a stop word
# ("The Normans", "In Rome") is left out (``_persons``)
_PERSON_EN = re.compile(r"\b[A-Z][a-z]+(?:[ \t]+(?:[A-Z]\.|[A-Z][a-z]+|"
                        r"(?:de|van|von|du|of|the)[ \t]+[A-Z][a-z]+))+")  # within a line
_PLACE_EN = re.compile(r"\b(in|at|from|near|to|of)\s+(the\s+)?[A-Z][a-z]+")
_NAME_EN = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|(?<!^)(?<![.!?]\s)(?<!\n)"
                      r"(?<![-*•#]\s)\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*")  # no line's opening word
_QUOTED = re.compile(r"[\"“《「『]([^\"”》」』]{2,40})[\"”》」』]")


def sentences(text: str) -> list[str]:
    """The passage cut at sentence ends (Latin and CJK punctuation) and line breaks."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


# "When the team dialed back its SLO, which percentile did it use?": a leading "when" or
# "where" clause sets the scene; the interrogative after the comma asks
_SCENE_CLAUSE = re.compile(r"^\s*(?:when|where|while|after|before|once|if)\b[^,?]*,\s*(?=(?:"
                           r"what|which|who|whom|whose|where|when|how)\b)", re.I)
# An English question opening with one of these is typed by its opening (``_first_asked``)
_OPENING = re.compile(r"\s*(what|which|who|whom|whose|where|when|how|why|is|are|was|were|do|"
                      r"does|did|can|could|should|would|will|has|have|had)\b", re.I)


def answer_type(query: str) -> AnswerType:
    """The expected answer type of a question (``other`` when none of the five)."""
    query = _SCENE_CLAUSE.sub("", query, count=1)
    patterns = _ZH_TYPES if has_cjk(query) else _EN_TYPES
    kind = _first_asked(query, patterns)
    if kind is None and has_cjk(query):  # a Chinese question may use English wh-words
        kind = _first_asked(query, _EN_TYPES)
    return kind or "other"


# Questions whose answer is surely a date or a number, the only types the judge's gate asks a
# passage to hold (``gated_type``): a year, a date or a count asked outright. "Who", "where" and
# "when" are not among them: policies and manuals answer them with roles ("your line manager"),
# paths, times and conditions no filler pattern knows (a review, session 8).
_EN_GATED: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"^(?:(?:in|on|during|from|since|until|by|at) )?(?:what|which) (?:year|"
                        r"date|day|month|century|decade|time(?= (?:do|does|did|is|was|will|"
                        r"should|must|can|are)\b))\b|^when (?:did|was|were)\b", re.I)),
    ("number", re.compile(r"^(?:(?:roughly|approximately|about|exactly|so|and|but),? )?(?:how "
                          r"(?:many|old|far|tall|high|big|large|long|deep|wide|heavy)\b|"
                          r"how much (?:(?:is|was|are|were) (?:the|a|an|it|this|that)\b|"
                          r"(?:money|time|memory|space|data|ram|disk)\b|(?=.*\b(?:cost|costs|paid|pay|pays|charge[sd]?|"
                          r"earn(?:s|ed)?|weigh(?:s|ed)?|price|fee|fees|salary|tax|taxes|budget|"
                          r"revenue)\b))|what (?:(?:"
                          r"is|was|are|were) )?(?:the |its |their )?(?:(?:average|estimated|"
                          r"total|approximate|current|maximum|minimum|median|annual) )?(?:"
                          r"population|age|salary|proportion|percentage|percent|number|price|"
                          r"cost|fee|amount|count|[a-z-]+ (?:number|price|cost|fee|amount)"
                          r"(?=\s+(?:of|for|to|in|on|at|does|did|is|was|will)\b|\s*\?|$))\b|"
                          + _EN_MONEY_ASKED + ")", re.I)),
)
_ZH_GATED: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"哪一年|哪年|何年|哪一天|哪天|几月|哪个月|哪个世纪|哪个年代|什么年份|"
                        rf"什么日期|{ZH_TIME_ASKED}|{ZH_HAO_ASKED}|(?:什么时候|何时)\S*[的了][？?]?\s*$")),
    # 多久, and 多高 / 多长 / 多远 / 多深 / 多宽 / 有多重 ending the question (``ZH_MEASURE``), ask
    # for a measure as "how long / tall / far" do
    ("number", re.compile(r"多少(?!有些|有点)|几[个位名次种条年天岁座家部项倍%]|百分之几|多久|"
                          + ZH_MEASURE)),
)


def gated_type(query: str) -> AnswerType | None:
    """The type a passage must hold a filler of to answer ``query`` (``None``: no such demand).

    ``date`` for a year, a date, a day or a month asked outright ("In what year ...?", "When
    did ...?", 哪一年); ``number`` for a count or a measure ("How many ...?", "What is the
    price ...?", 多少); English cues open the question (after a scene clause: "When the SLO
    was cut, how many ...?"), so "List the engineers who ..." or "password reset when locked
    out" ask for nothing checkable.
    """
    if has_cjk(query):
        return _first_asked(query, _ZH_GATED)
    return _first_asked(_SCENE_CLAUSE.sub("", query, count=1).lstrip(), _EN_GATED)


def _first_asked(query: str, patterns: tuple[tuple[AnswerType, re.Pattern[str]], ...]
                 ) -> AnswerType | None:
    """The type whose interrogative comes first ("how much ... when travelling": a number).

    An English question that opens with an interrogative or an auxiliary is typed by that
    opening alone: a later "who", "whose" or "when" is a relative pronoun or a conjunction
    ("Which status code ... for a PUT whose path ...", "What does it say to do when ...").
    """
    found = [(m.start(), i, kind) for i, (kind, pattern) in enumerate(patterns)
             if (m := pattern.search(query))]
    opening = None if has_cjk(query) else _OPENING.match(query)
    if opening:
        found = [f for f in found if f[0] == opening.start(1)]
    return min(found)[2] if found else None


def fillers(text: str, kind: AnswerType) -> list[str]:
    """The strings of ``text`` that could fill answer type ``kind`` (empty for ``other``)."""
    if kind == "other":
        return []
    if kind == "date":
        return [m.group() for m in _DATE.finditer(text)]
    if kind == "number":
        return [m.group() for m in NUMBER_SPAN.finditer(text)]
    out: list[str] = []
    if kind == "name":
        out += _QUOTED.findall(text)
    if HAN.search(text):
        tags = {"person": ("nr", "nt", "nrt", "nrfg"), "place": ("ns", "nt"),
                "name": ("nz", "nt", "nrt", "eng")}[kind]
        out += [p.word for p in posseg().cut(text) if p.flag in tags]
    if kind == "person":
        return out + _persons(text)
    pattern = {"place": _PLACE_EN, "name": _NAME_EN}[kind]
    return out + [m.group() for m in pattern.finditer(text)]


_SENTENCE_END = re.compile(r"[.!?]\s*$")


def _persons(text: str) -> list[str]:
    """Runs of capitalised words that may name a person ("Duke William", "Lawrence Hargrave").

    A run opening a sentence loses a first word that is a stop word ("In Rome", "The Normans");
    what is left must still be two words.
    """
    out = []
    for m in _PERSON_EN.finditer(text):
        run = m.group()
        opening = m.start() == 0 or _SENTENCE_END.search(text[max(0, m.start() - 3):m.start()])
        first, _, rest = run.partition(" ")
        if opening and first.casefold() in STOPWORDS:
            if " " not in rest.strip():
                continue
            run = rest.strip()
        out.append(run)
    return out


# a price asked, and a price of nothing written
_PRICED = re.compile(r"\b(?:cost|costs|price|prices|fee|fees|charge|charges|pay|paid)\b|多少钱|"
                     r"价格|费用|收费|月费|年费", re.I)
_FREE = re.compile(r"\bfree(?: of charge)?\b|\bno (?:charge|cost|fee)\b|\bat no cost\b|免费|"
                   r"不收费|不要钱", re.I)
# a question counting things: "how many employees", 多少名员工, 几个 (not 多长的: a time or length)
_COUNT_ASKED = re.compile(r"\bhow many\b|多少|几(?![号乎])", re.I)


def novel_filler(text: str, kind: AnswerType, query: str,
                 asked: Sequence[Term] = ()) -> str | None:
    """The first filler of ``kind`` in ``text`` that the question does not name itself.

    A filler is not novel when the query contains all its words, or when it is one of the
    query's content terms ``asked`` in another language (one of their searched translations:
    "澳洲" for a question about "Australia" is the question's own entity, not its answer). A
    number must carry the unit the question asks it in (``asked_units``), when it asks one
    (or the passage declares it: "(元)"); "free" (免费) is a price; else a number that writes
    a year or a date, or a time where things are counted ("three years" for "how many
    employees"), is no count. A date asked by the time, day or year is written to that grain
    (``kb.retrieve.units.asked_date_grain``: "April 2014" answers no "which day"; a day no 几点).
    """
    if kind == "number" and _PRICED.search(query) and (free := _FREE.search(text)):
        return free.group()  # "Shipping to Canada is free" answers "What is the shipping cost?"
    q = query.casefold()
    named = {w.casefold() for t in asked for w in t.translations[:TRANSLATIONS_SEARCHED]}
    units = asked_units(query) if kind == "number" else ()
    if units and not declared_units(text) & set(units):
        years = [d.span() for d in _CALENDAR_YEAR.finditer(text)]  # 2011年 is no 11 years
        bare = measure_by_noun(query)  # 面积是多少: "约12.57" answers, "68米" and 1965 do not
        if bare:
            years += [d.span() for d in _YEAR_OR_DATE.finditer(text)]
        candidates = [m.group() for m in NUMBER_SPAN.finditer(text)
                      if (with_unit(text, m, units) or bare and _bare(text, m))
                      and not any(a <= m.start() < b for a, b in years)]
    elif kind == "number":  # a count is no year or date: "founded in 1998" counts nothing,
        # nor, for "how many" / 多少 / 几, a time: "replaced every three years", 十五天 count no
        # employees (a question counting a time asks its unit: "how many days")
        dates = [d.span() for d in _YEAR_OR_DATE.finditer(text)]
        counted = _COUNT_ASKED.search(query) is not None
        candidates = [m.group() for m in NUMBER_SPAN.finditer(text)
                      if units or not any(a <= m.start() < b for a, b in dates)
                      and not (counted and with_unit(text, m, DURATIONS))]
    elif kind == "date" and (grain := asked_date_grain(query)):
        candidates = dates_in_grain(text, grain)  # a month answers no "which day"
    else:
        candidates = fillers(text, kind)
    for f in candidates:
        # a numeral with the unit asked is no stop word: 一分钟 answers 多久 (alone, 一 is
        # in every other Chinese sentence: 一个, 一种)
        words = [w for w in re.findall(r"\w+", f.casefold())
                 if not is_stop(w) or units and NUMBER_SPAN.fullmatch(w)]
        if (words and not all(w in q for w in words) and f.casefold() not in named
                and not all(normalise_word(w) in named for w in words)):
            return f
    return None


def filler_apart(sents: Sequence[str], f_terms: Sequence[Term], demanded: AnswerType,
                 query: str, terms: Sequence[Term]) -> bool:
    """Whether the date or number asked lies only away from every sentence naming the focus.

    ``True`` when the sentences holding one of ``f_terms`` (with the one before and after
    each) hold no novel filler of type ``demanded`` in the unit or grain asked
    (``novel_filler``): the passage answers with a date or number of
    something else ("When was Harold Pembridge born?" against "He founded Pembridge & Sons in
    1921" two sentences from "born"). ``False`` when no sentence holds a focus term: then
    nothing says where the answer would be. The caller asks it only of a passage in the
    question's script and lets a date in the title answer ("Harold Pembridge (1890-1961)").
    A unit a table's header declares ("Actual (EUR)", "| Leave days |") is read with every
    row, and a row naming a number asked within a range ("3-5" for 4) names it.
    """
    pairs = [f"{x}\n{y}" for x, y in zip(sents, [*sents[1:], ""], strict=True)]  # header, rule
    declaring = "".join(f"\n{x}" for x in pairs if declared_units(x))
    windows = [around_sentence(sents, i) + declaring for i, x in enumerate(sents)
               if any(passage_terms(x).has(t) or in_range(t.text, x) for t in f_terms)]
    return bool(windows) and all(novel_filler(w, demanded, query, terms) is None
                                 for w in windows)


def around_sentence(sents: Sequence[str], i: int) -> str:
    """Sentence ``i`` with the one before and the one after it, one a line.

    (A heading line's last word and the next sentence's first make no name.)
    """
    return "\n".join(sents[max(0, i - 1): i + 2])


def best_sentence(sents: Sequence[str], terms: Sequence[Term], weights: Sequence[float],
                   f_terms: Sequence[Term], f_weights: Sequence[float], text: str
                   ) -> tuple[int, float, str]:
    """The sentence covering the most focus weight, its focus coverage, and where to look.

    Returns ``(index into sents, its focus coverage in [0, 1], the text searched for an
    answer-type filler)``: the sentence with its neighbours. A heading line ("# Acme
    Widgets") answers nothing and is chosen only when it is all there is. A table's data row
    is read with its header row (``kb.retrieve.rows``); of sentences covering as much focus,
    the one holding more of all the question's terms is taken. When no sentence
    holds a focus term the sentence holding most of the question's terms is taken (its
    coverage still 0); when none holds any (a question in another language, whose words the
    passage writes in its own) nothing says where the answer would be, so the filler is
    looked for in the whole passage.
    """
    body = [i for i, s in enumerate(sents) if not HEADING.match(s)] or list(range(len(sents)))
    held = [passage_terms(r) for r in with_headers(sents)]  # a table row under its header
    whole = [coverage(terms, weights, held[i]) for i in body]
    covers = [coverage(f_terms, f_weights, held[i]) for i in body] if f_terms else whole
    if max(covers) > 0:  # ties go to the sentence holding more of the whole question
        best = body[max(range(len(body)), key=lambda k: (covers[k], whole[k], -k))]
        return best, max(covers), around_sentence(sents, best)
    if max(whole) > 0:
        best = body[int(np.argmax(whole))]
        return best, 0.0, around_sentence(sents, best)
    return body[0], 0.0, text

