"""The other side of a contrast a question asks: the first bus for the last, a midterm for a final.

"When does the last Route 22 bus leave?" against "The first bus leaves at 04:40.", and
"明德实验中学初二的期末考试是哪一天？" against a timetable giving only 期中考试's days: the date
or number the passage holds is of the other side of a pair of words that exclude each other.
Pairs (``CONTRASTS``): first / last, earliest / latest, minimum / maximum, lowest / highest,
smallest / largest, shortest / longest, midterm / final, weekday / weekend, upper / lower,
domestic / international, import / export; 期中 / 期末, 首班 / 末班, 最早 / 最晚, 最高 / 最低,
最大 / 最小, 最长 / 最短, 最多 / 最少, 上半年 / 下半年, 工作日 / 周末, 国内 / 国际, 进口 / 出口.

The side is asked of what follows it (its *head*: "bus" of "the last Route 22 bus", 考试 of
期末考试, 速 of 最高速度), and the other side counts in a passage only before the same head
("the first bus", 期中考试): "How long does the warranty last?" (a verb), "revenue last year"
(a time) and "capped at 90 min" ask or tell of no side, and "the first 24 months" is no first
bus. The clauses are read as ``kb.retrieve.events.filled_clauses`` reads them for events: the
passage tells of the other side only when every clause holding a filler that could answer
names that side and not the one asked, with no more numbers than sides; a clause naming
neither ("buses run until 23:10" beside "the first bus leaves at 05:30"), or one holding two
times ("the first bus leaves at 05:30 and service ends at 23:55"), may hold the answer, and
then nothing is decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.retrieve.events import filled_clauses, kinds_apart
from kb.retrieve.terms import Term, holds_any, is_stop
from kb.store.textindex import normalise_word


def _en(words: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{words})\b", re.I)


# (name, pattern) for each side of a pair; a question naming one side and not the other asks it
CONTRASTS: tuple[tuple[tuple[str, re.Pattern[str]], tuple[str, re.Pattern[str]]], ...] = (
    (("first", _en("first|earliest")), ("last", _en("last|latest"))),
    (("minimum", _en("minimum|lowest|smallest|shortest")),
     ("maximum", _en("maximum|highest|largest|biggest|longest"))),
    (("midterm", _en("mid-?terms?|mid-?year")), ("final", _en("finals?|end-of-year"))),
    (("weekday", _en("weekdays?")), ("weekend", _en("weekends?"))),
    (("upper", _en("upper")), ("lower", _en("lower"))),
    (("domestic", _en("domestic")), ("international", _en("international|overseas"))),
    (("import", _en("imports?|imported")), ("export", _en("exports?|exported"))),
    (("期中", re.compile("期中")), ("期末", re.compile("期末"))),
    (("首班", re.compile("首班|头班")), ("末班", re.compile("末班|尾班"))),
    (("最早", re.compile("最早")), ("最晚", re.compile("最晚|最迟"))),
    (("最高", re.compile("最高|最大|最长|最多")), ("最低", re.compile("最低|最小|最短|最少"))),
    (("上半年", re.compile("上半年")), ("下半年", re.compile("下半年"))),
    (("工作日", re.compile("工作日")), ("周末", re.compile("周末"))),
    (("国内", re.compile("国内")), ("国际", re.compile("国际|海外|境外"))),
    (("进口", re.compile("进口")), ("出口", re.compile("出口"))),
)
HEAD_WORDS = 3  # an English side's head: among the next three words ("last Route 22 bus")
HEAD_CHARS = 1  # a Chinese side's head: the next character (期末考试: 考; 末班车: 车)
# "last year", "the first time": a time, not a side
_TIMES = frozenset("time times year years week weeks month months day days night season "
                   "quarter decade century".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# a number, a time or a date is one ("04:40", "1.5", "4 月 21 日", "2024年5月", "5 点 30 分")
_NUMBERS = re.compile(r"\d+(?:\s*[:.,/年月点时-]\s*\d+)*")


def _heads(text: str, at: int) -> frozenset[str]:
    """What the side ending at ``at`` is said of: the next content words' stems, or two Han."""
    after = text[at:]
    if _HAN.match(after.lstrip()[:1]):
        han = "".join(_HAN.findall(after[:HEAD_CHARS + 1]))[:HEAD_CHARS]
        return frozenset({han}) if han else frozenset()
    words = _WORD.findall(after)[:HEAD_WORDS]
    if words and words[0].lower() in _TIMES:
        return frozenset()
    return frozenset(normalise_word(w) for w in words if not is_stop(w) and not w.isdigit())


def contrast_filled(query: str, sents: Sequence[str], filled: Callable[[str], bool],
                    focus: Sequence[Term] = ()) -> tuple[str, ...]:
    """The other side of a contrast a question asks, when the passage holds only that side.

    Args:
        query: a question asking a date or a number.
        sents: the passage's sentences.
        filled: whether a text holds a date or a number that could answer.
        focus: the question's focus terms; when sentences holding one (or the other side
            before the head asked: 期中考试 for 期末考试) could answer, only those count (a
            timetable's other dates tell of other things).

    Returns:
        The other side's name, for the first pair whose one side the question names before
        a head (and not the other side), when every filled clause of the counted sentences
        names the other side before that head, not the one asked, and holds no more numbers
        than that; ``()`` otherwise.
    """
    for (one, one_words), (other, other_words) in CONTRASTS:
        for (asked, asked_words), (name, words) in (((one, one_words), (other, other_words)),
                                                    ((other, other_words), (one, one_words))):
            if words.search(query):
                continue
            heads = frozenset().union(*(_heads(query, m.end())
                                        for m in asked_words.finditer(query)))
            if heads:
                return _other_side(sents, filled, focus, (asked, asked_words), (name, words),
                                   heads)
    return ()


def _other_side(sents: Sequence[str], filled: Callable[[str], bool], focus: Sequence[Term],
                asked: tuple[str, re.Pattern[str]], other: tuple[str, re.Pattern[str]],
                heads: frozenset[str]) -> tuple[str, ...]:
    """``contrast_filled`` for one pair: the side asked, the other, and what it is said of."""
    words = [t for t in focus if not any(c.isdigit() for c in t.text)]  # 22 of Route 22 names

    def other_before_head(text: str) -> bool:
        return any(_heads(text, m.end()) & heads for m in other[1].finditer(text))

    def tells(sentence: str) -> bool:
        return holds_any(sentence, words) or other_before_head(sentence)

    def sides(text: str) -> frozenset[str]:
        return frozenset({asked[0]} if asked[1].search(text) else
                         {other[0]} if other_before_head(text) else ())

    told = [s for s in sents if tells(s) and filled(s)]
    return kinds_apart(frozenset({asked[0]}), filled_clauses(told or sents, filled, sides),
                       _NUMBERS)


__all__ = ["CONTRASTS", "contrast_filled"]
