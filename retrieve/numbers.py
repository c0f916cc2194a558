"""Numbers a question names, and whether a passage writes them (pure functions).

A number the question *names* is a constraint on the answer, like a name it names: "Who ruled
Normandy in 1066?", "第一部《ONE PIECE》剧场版", "澳门最近一次悬挂十号风球". A passage that
writes none of it, however close to the topic, is about another year, film or signal
(``kb.retrieve.judge`` fails such a passage at its evidence gate).

The question's numbers are read strictly, so that a word that merely holds a numeral is no
constraint: Arabic digit runs (``1066``, ``CAPP2``, ``F-100``, ``1.3``; thousands separators
dropped), English ordinals from ``second`` to ``twentieth`` ("the third film"), Roman
numerals after a name ("Harold II"), and in Chinese only jieba words that are
a numeral run (``二十三``, ``十一``; a lone ``一`` is part of too many words), an ordinal
(``第一``, ``第三部``) or a numeral with an identifying unit (``十号``, ``二世``, ``三届``):
``哪一年``, ``一共``, ``两侧``, ``十分`` name no number. ``first`` and the cardinal words are
left out ("first recorded", "the two parties" seldom name a number the passage must write).
An ISO week ("2025-W16") is one number, the week (``w16``): a rota of 2025-W14 and 2025-W15
writes its year, not it; a passage naming weeks ("W16", "week 16", "Wk 16", 第十六周, a Week
column's 16) writes it by the number.

A passage's numbers are read generously, so that any way of writing a number counts: digit
runs after Chinese numerals are written as digits (``kb.retrieve.numerals.arabic_numerals``),
English cardinal and ordinal words up to twenty, Roman numerals, month names as their
numbers, and a year's last two digits (``1980s`` holds ``80``: "八十年代").

``sibling_written`` lets a passage about one of two names that differ only in their digits
("SINOSAT-1 and SINOSAT-2") answer in part, though it writes only its own name's number.
``kb.retrieve.siblings`` does the reverse for a question asked of a numbered name: "When
was the Seahound 2 launched?" is not answered by "The Seahound 3 was launched on 9 September
2019", though the passage goes on to write "the earlier Seahound 2".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache

from kb.retrieve.numerals import arabic_numerals
from kb.retrieve.terms import Term
from kb.store.textindex import cut_words, has_cjk

_WORDS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
          "fifteen sixteen seventeen eighteen nineteen twenty").split()
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
             "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
             "nineteenth twentieth").split()
MONTH_NAMES = ("january february march april may june july august september october november "
               "december").split()
WORD_VALUE = ({w: str(i + 1) for i, w in enumerate(_WORDS)}
               | {w: str(i + 1) for i, w in enumerate(_ORDINALS)}
               | {m: str(i + 1) for i, m in enumerate(MONTH_NAMES)}
               | {m[:3]: str(i + 1) for i, m in enumerate(MONTH_NAMES) if m != "may"}
               | {"sept": "9"})
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*s?")
# a decade: "1990s", "early-1990s", "80s", "1990年代" (its run keeps the trailing "s")
_DECADE = re.compile(r"\b((?:1[0-9]|20)?[0-9]0)(?:s|'s| ?年代)")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
# English ordinals a question names ("the third film"); not "first" ("first recorded"), nor
# "second" as a unit of time ("frames per second", "a second", "1 second")
_QUERY_ORDINAL = re.compile(r"(?<!\bper )(?<!\ba )(?<!\bone )(?<!\beach )(?<!\d )\b("
                            + "|".join(_ORDINALS[1:]) + r")\b", re.I)
_MONTH = "(?:" + "|".join((*(m.capitalize() for m in MONTH_NAMES),
                             *(m.upper() for m in MONTH_NAMES), "Jan", "Feb", "Mar", "Apr", "Jun",
                             "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec")) + ")"
_MONTH_WORD = re.compile(rf"\b({_MONTH})\b", re.A)  # capitalised, ASCII only ("Auguſt" is none)
_EN_DATED_MONTH = re.compile(  # a month's name with a date beside it ("15-Mar-2024", "March 3rd")
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?:\s+of\s+|[\s-]+){_MONTH}\b|"
    rf"\b{_MONTH}\.?,?[\s-]+\d{{1,4}}(?:st|nd|rd|th)?\b|"
    rf"\b(?:[Ii]n|[Oo]f|[Dd]uring|[Ee]arly|[Ll]ate|[Mm]id-|[Mm]id)\s*{_MONTH}\b", re.A)
# a span of months asked: "after March", "from March to June", "3月以前", "3-6月", "从3月起"
_MONTH_SPAN = re.compile(
    rf"\b(?:[Aa]fter|[Ss]ince|[Bb]efore|[Uu]ntil|[Tt]ill|[Bb]etween|[Ff]rom|[Tt]hrough|[Bb]y|"
    rf"[Pp]rior to)\s+(?:(?:the\s+)?(?:end|start|beginning|middle)\s+of\s+|early\s+|mid-?|"
    rf"late\s+)?{_MONTH}\b|\b{_MONTH}\.?\s*(?:\d{{1,2}}\s*)?(?:to|-|–|—|through|until|and)\s*"
    rf"(?:\d{{1,2}}\s+)?{_MONTH}\b|月份?\s*(?:以前|之前|以后|之后|以来|起|前|后|初起|底前|至|到|"
    rf"[-~～—–])|[-~～—–至到]\s*[0-9０-９一二三四五六七八九十]{{1,2}}\s*月|从\s*[0-9０-９一二三四五六七八九十]"
    rf"{{1,2}}\s*月", re.A)
_ZH_MONTH = re.compile(r"(?<![0-9０-９零〇一二两三四五六七八九十个])"
                       r"([0-9０-９]{1,2}|十[一二]?|[一二三四五六七八九])\s*月(?!份?\s*(?:以[上内]|之内|多))")
_DIGIT_DATE = re.compile(r"(?<![\d.])\d{4}[-/.](\d{1,2})[-/.]\d{1,2}(?!\d)|"
                         r"(?<![\d.])(\d{1,2})[-/.](\d{1,2})[-/.]\d{4}(?!\d)")
_ROMAN = re.compile(r"\b(?=[IVX]{2,5}\b)(X{0,3})(IX|IV|V?I{0,3})\b")
# a capitalised word then a Roman numeral: "Harold II", "Alexander I", "Pope Leo IX"
_NAMED_ROMAN = re.compile(r"\b[A-Z][a-z]+ (?=[IVX]{1,5}\b)(X{0,3})(IX|IV|V?I{0,3})\b")
# a decimal point written as a token of its own ("mach 1 .3")
_SPACED_POINT = re.compile(r"(?<=\d) \.(?=\d)")
# A number a document writes in 10% of its chunks (one at least) is no constraint on its passages:
# a model number ("737 MAX"), a survey's year, a short abstract's "50 L" (measured on the
# train split: see bench/README.md)
NUMBER_SHARE = 0.1
_ZH_NUMERAL = "零〇一二两三四五六七八九十百千万"
# words _ZH_NAMED would take for numbers: idioms ("just in case", "by all means", "one by
# one") and "the first time" / "the first one" (as English "first")
_ZH_NOT_NAMED = frozenset({"万一", "千万", "一一", "一一对应", "百万", "千千万万", "万万"})
_ZH_FIRST_TIME = ("第一次", "第一个", "第一时间")
# "the next / last / this / which one" (下一期, 上一届, 这一期, 哪一期): 一 after these is no number
_ZH_DEICTIC = frozenset("上下这那每本同另哪")
# a jieba word naming a number: a numeral run of two or more characters or with a unit
# character, an ordinal (第...), or a numeral with a unit that identifies (十号, 二世, 三届)
_ZH_NAMED = re.compile(rf"^(?:第[{_ZH_NUMERAL}\d]+.*|[{_ZH_NUMERAL}]+(?:号线|号|世|届|期|代)|"
                       rf"[{_ZH_NUMERAL}]*[十百千万][{_ZH_NUMERAL}]*|[{_ZH_NUMERAL}]{{2,}})$")


# an ISO week a question names ("2025-W16", "2025W16"): one number, ``w16``
_ISO_WEEK = re.compile(r"(?<![A-Za-z0-9])\d{4}-?W(\d{1,2})(?![0-9])", re.I)
# a week a passage writes: "W16", "KW16", "wk 16", "week #16", "weeks 15-16", 第十六周, "16 周"
_WEEK = re.compile(r"(?<![A-Za-z])(?:KW|W|wks?|weeks?)\s*#?\s*(\d{1,2})"
                   r"(?:\s*[-–]\s*(\d{1,2}))?(?!\d)|第\s*(\d{1,2})\s*周"
                   r"|(?<!\d)(\d{1,2})\s*周(?![一二三四五六日末年])", re.I)
_WEEK_COLUMN = re.compile(r"(?:^|\|)[ \t]*weeks?[ \t]*\|", re.I | re.M)  # a "Week" header cell


def named_numbers(query: str) -> frozenset[str]:
    """The numbers ``query`` names, as digit strings (see the module docstring).

    Args:
        query: the user's question, any language.

    Returns:
        Digit strings without thousands separators (``"1066"``, ``"1.3"``, ``"10"``), and
        decades with a trailing ``s`` (``"1990s"``, ``"40s"``); empty when the question
        names none.
    """
    text = unicodedata.normalize("NFKC", query)
    weeks = {f"w{int(m.group(1))}" for m in _ISO_WEEK.finditer(text)}  # 2025-W16: week 16 of
    text = _ISO_WEEK.sub(" ", text)  # 2025, one number: its year writes no week
    found = weeks | set(_digit_runs(_DECADE.sub(r"\1s", text)))
    found.update(WORD_VALUE[m.group(1).lower()] for m in _QUERY_ORDINAL.finditer(text))
    # the pronoun "I" is no numeral: "Can I", "Should I"
    found.update(_roman_value(m) for m in _NAMED_ROMAN.finditer(text) if m.group(0)[-2:] != " I")
    if has_cjk(text):
        words = cut_words(text)
        for i, word in enumerate(words):
            if (not _DIGITS.search(word) and _ZH_NAMED.match(word)
                    and word not in _ZH_NOT_NAMED and not word.startswith(_ZH_FIRST_TIME)
                    and not (i and words[i - 1][-1] in _ZH_DEICTIC and len(word) > 1
                             and word[0] == "一" and word[1] not in _ZH_NUMERAL)):
                decade = i + 1 < len(words) and words[i + 1].startswith("年代")
                found.update(n + "s" if decade else n
                             for n in _digit_runs(arabic_numerals(word)))
    found.discard("")
    return frozenset(found)


@lru_cache(maxsize=4096)
def written_numbers(text: str) -> frozenset[str]:
    """Every number ``text`` writes, in any of the ways the module docstring lists.

    Args:
        text: a passage (with its title and headings, as the judge reads it).

    Returns:
        Digit strings, as ``named_numbers`` writes them.
    """
    text = _SPACED_POINT.sub(".", unicodedata.normalize("NFKC", text))
    numerals = arabic_numerals(text)
    found = set(_digit_runs(numerals))
    for m in _WEEK.finditer(numerals):
        first, last, *zh = m.groups()
        low = int(first or next(z for z in zh if z))
        found.update(f"w{n}" for n in range(low, max(low, min(int(last or low), 53)) + 1))
    if _WEEK_COLUMN.search(text):  # a table's Week column: its numbers are weeks
        found.update(f"w{int(n)}" for n in list(found) if n.isdigit())
    found.update(n[:-1] for n in list(found) if n.endswith("s"))
    found.update(n[2:] for n in list(found) if len(n) == 4 and n[:2] in ("19", "20"))
    found.update(WORD_VALUE[w.lower()] for w in _LATIN_WORD.findall(text)
                 if w.lower() in WORD_VALUE)
    found.update(_roman_value(m) for m in _ROMAN.finditer(text))
    found.update(_roman_value(m) for m in _NAMED_ROMAN.finditer(text))
    found.discard("")
    return frozenset(found)


def missing_numbers(named: frozenset[str], text: str) -> tuple[str, ...]:
    """The numbers of ``named`` when ``text`` writes none of them, sorted; else empty.

    One is enough: a question naming several ("the second and third films", "SINOSAT-1 and
    SINOSAT-2") may be answered in parts. A decade (``"1990s"``, ``"80s"``, ``"40s"``) is
    written by any number in it (``1991``, ``1985``, ``40`` to ``49``), and a number by a
    range holding it (``in_range``: "4 years of service" by a table's row "3-5").

    Args:
        named: ``named_numbers`` of the question.
        text: the passage with its title and headings.

    Returns:
        ``()`` when ``text`` writes one of ``named`` (or ``named`` is empty), else all of
        ``named``, sorted.
    """
    if not named:
        return ()
    written = written_numbers(text)
    if any(n in written or (n.endswith("s") and any(_in_decade(w, n[:-1]) for w in written))
           or in_range(n, text) for n in named):
        return ()
    return tuple(sorted(named))


def in_range(number: str, text: str) -> bool:
    """Whether ``text`` writes a range holding ``number`` (digits; ``number_ranges``).

    The range's ends are of the number's kind (``_magnitude``): a year asked is held by a
    range of years ("1990-2000"), never by "1200-2500 EUR" or "100 to 5000 escudos"; and
    "555-1234", a phone number, holds nothing.
    """
    if not number.isdigit():
        return False
    n, kind = int(number), _magnitude(int(number))
    return any(low <= n <= high and _magnitude(low) == kind
               and (high == float("inf") or _magnitude(high) == kind)
               for low, high in number_ranges(text))


def _magnitude(n: float) -> int:
    """0 for a small number (under 1000), 1 for one that may be a year (1000-2100), 2 above."""
    return 0 if n < 1000 else 1 if n <= 2100 else 2


def number_ranges(text: str) -> list[tuple[float, float]]:
    """The ranges of whole numbers ``text`` writes, as ``(low, high)`` (``high`` inf: and up).

    "3-5", "3–5", "3 to 5", "3~5", "3至5" (low below high), and "6+". A number a question
    names inside one is written ("4 years of service" against a leave table's row "| 3-5 |
    29 |"; ``in_range``). A dash inside a longer run of digits and dashes is no range:
    "2024-03-31" and "020-7946-0123" are a date and a phone number.
    """
    out: list[tuple[float, float]] = []
    numerals = arabic_numerals(unicodedata.normalize("NFKC", text))
    for m in _RANGE.finditer(numerals):
        low, high = int(m.group(1)), int(m.group(2))
        if low < high:
            out.append((low, high))
    out.extend((int(m.group(1)), float("inf")) for m in _AND_UP.finditer(numerals))
    return out


# "3-5", "3 – 5", "3 to 5", "3~5", "3至5": not inside a date or phone number ("2024-03-31")
_RANGE = re.compile(r"(?<![\d.,:/-])(\d{1,4})\s*(?:-|–|—|~|～|\bto\b|至|到)\s*(\d{1,4})"
                    r"(?![\d:/]|[.,-]\d)")
_AND_UP = re.compile(r"(?<![\d.,+])(\d{1,4})\+(?![\d+]|\s*\d)")  # "6+": six and up


def months_named(text: str) -> frozenset[int]:
    """The months ``text`` dates something by (1-12).

    A month's name counts only with a date beside it (capitalised, full or abbreviated: "30
    April", "March 2024", "Sept. 3", "in March", "end of May"): alone it is as often a verb
    ("May I ...?"), a name ("Jan approved it", "April Jones") or a qualifier ("the March
    budget"). Also 3月 / 三月 (not "3个月", a duration), and a date in digits ("2024-03-31";
    "31/03/2024" gives both readings of a day-month order).
    """
    found = {int(WORD_VALUE[w.lower()]) for m in _EN_DATED_MONTH.finditer(text)
             for w in _MONTH_WORD.findall(m.group())}
    found.update(int(arabic_numerals(m.group(1))) for m in _ZH_MONTH.finditer(text)
                 if arabic_numerals(m.group(1)).isdigit())
    for m in _DIGIT_DATE.finditer(text):
        found.update(int(g) for g in m.groups() if g)
    return frozenset(n for n in found if 1 <= n <= 12)


def months_apart(query: str, text: str) -> tuple[str, ...]:
    """The months a question names when ``text`` dates by months and none of them, else ``()``.

    "What was the bank balance at the end of March 2024?" against "Bank balance at 30 April"
    (a trial's committee minutes, passed at 83%): the passage is dated, and not by the month
    asked. A passage that writes no month decides nothing (an undated figure may hold), nor
    does a span asked or written ("after March", "between March and June", "3月以前",
    "3-6月", "Jan–Mar 2024"): another month may lie in it.
    """
    asked = months_named(query)  # most questions name none: nothing of the passage is read
    if not asked or _MONTH_SPAN.search(query) or _MONTH_SPAN.search(text):
        return ()
    written = months_named(text)
    return tuple(MONTH_NAMES[n - 1] for n in sorted(asked)) if written and not (
        written & asked) else ()


def _in_decade(number: str, decade: str) -> bool:
    """Whether ``number`` lies in ``decade`` (a multiple of 10: ``"1990"``, ``"90"``, ``"40"``).

    ``1991`` is in ``1990``; ``1985`` and ``85`` in ``80`` (a decade of years, "the 80s");
    ``42`` in ``40`` ("in their 40s").
    """
    if not number.isdigit():
        return False
    if len(number) == len(decade):
        return number[:-1] == decade[:-1]
    return len(decade) == 2 and len(number) == 4 and number[2] == decade[0]


def _digit_runs(text: str) -> list[str]:
    """Digit runs of ``text``: thousands separators dropped, a decimal point kept."""
    out = []
    for run in _DIGITS.findall(text):
        decade = run.endswith("s")
        run = re.sub(r",(?=\d{3}(?:\D|$))", "", run.rstrip("s"))
        if decade and "," not in run and "." not in run and run.endswith("0"):
            out.append(run.lstrip("0") + "s")
            continue
        out.extend(p if "." in p else p.lstrip("0") or "0" for p in run.split(","))
    return out


def _roman_value(m: re.Match[str]) -> str:
    """The value of a Roman numeral matched as (tens, units) groups."""
    tens, units = m.group(1), m.group(2)
    value = 10 * len(tens)
    value += {"IX": 9, "IV": 4}.get(units, (5 if units.startswith("V") else 0)
                                     + units.count("I"))
    return str(value) if value else ""


def document_numbers(terms: Sequence[Term], doc_id: int, doc_chunks: Mapping[int, int],
                     doc_term_chunks: Mapping[tuple[int, str], int]) -> set[str]:
    """The terms (their ``text``) a document writes in ``NUMBER_SHARE`` of its chunks, one at least.

    The numbers among them set the document's scene: a short document (an abstract in three
    chunks) writing "50 L" once sets it for all its chunks; in a long one the number must
    recur.

    Args:
        terms: the question's content terms.
        doc_id: the passage's document.
        doc_chunks: document id -> its number of chunks.
        doc_term_chunks: (document id, term text) -> chunks of that document holding the term.
    """
    n = doc_chunks.get(doc_id, 0)
    return {t.text for t in terms
            if (k := doc_term_chunks.get((doc_id, t.text), 0)) and k >= NUMBER_SHARE * n}


def sibling_written(terms: Sequence[Term], numbers_of: Mapping[str, frozenset[str]],
                    free: frozenset[str], text: str) -> bool:
    """Whether the passage writes the number of a name whose sibling the question still asks.

    "When were SINOSAT-1 and SINOSAT-2 launched?": a passage about SINOSAT-1, whose document
    makes "1" no constraint, answers in part; names are siblings when they differ only in
    their digits and hold a letter.

    Args:
        terms: the question's content terms.
        numbers_of: each term's text -> the numbers it names (``named_numbers``).
        free: the numbers the question names that constrain (not set by the document).
        text: the passage with its document's title and heading path.
    """
    written = written_numbers(text)
    asked = {_family(t.text) for t in terms if numbers_of[t.text] & free} - {None}
    return any(_family(t.text) in asked and numbers_of[t.text] & written for t in terms)


def _family(text: str) -> str | None:
    """A name with its digits blanked ("sinosat #"), or ``None`` for a bare number."""
    return re.sub(r"\d+", "#", text) if re.search(r"[^\W\d_]", text) else None
