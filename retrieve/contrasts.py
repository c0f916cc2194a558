"""The other side of a contrast a question asks: the first bus for the last, a midterm for a final.

"When does the last Route 22 bus leave?" against "The first bus leaves at 04:40.", and
"明德实验中学初二的期末考试是哪一天？" against a timetable giving only 期中考试's days: the date
or number the passage holds is of the other side of a pair of words that exclude each other.
Pairs (``CONTRASTS``): first / last, earliest / latest, minimum / maximum, lowest / highest,
smallest / largest, shortest / longest, midterm / final, weekday / weekend, upper / lower,
domestic / international, import / export; 期中 / 期末, 首班 / 末班, 最早 / 最晚, 最高 / 最低,
最大 / 最小, 最长 / 最短, 最多 / 最少, 上半年 / 下半年, 工作日 / 周末, 国内 / 国际, 进口 / 出口.

The clauses are read as ``kb.retrieve.events.filled_clauses`` reads them for events: the passage
tells of the other side only when every clause holding a filler that could answer names that
side and not the one asked; a clause naming neither ("buses run until 23:10" beside "the first
bus leaves at 05:30") may hold the answer, and then nothing is decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.retrieve.events import filled_clauses, kinds_apart
from kb.retrieve.terms import Term, passage_terms


def _en(words: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{words})\b", re.I)


# (name, pattern) for each side of a pair; a question naming one side and not the other asks it
CONTRASTS: tuple[tuple[tuple[str, re.Pattern[str]], tuple[str, re.Pattern[str]]], ...] = (
    (("first", _en("first|earliest")), ("last", _en("last|final|latest"))),
    (("minimum", _en("minimum|min|lowest|smallest|shortest")),
     ("maximum", _en("maximum|max|highest|largest|biggest|longest"))),
    (("midterm", _en("mid-?terms?|mid-?year")), ("final", _en("finals?|end-of-year"))),
    (("weekday", _en("weekdays?|monday|tuesday|wednesday|thursday|friday")),
     ("weekend", _en("weekends?|saturdays?|sundays?"))),
    (("upper", _en("upper")), ("lower", _en("lower"))),
    (("domestic", _en("domestic")), ("international", _en("international|overseas|abroad"))),
    (("import", _en("imports?|imported")), ("export", _en("exports?|exported"))),
    (("期中", re.compile("期中")), ("期末", re.compile("期末"))),
    (("首班", re.compile("首班|头班")), ("末班", re.compile("末班|尾班"))),
    (("最早", re.compile("最早")), ("最晚", re.compile("最晚|最迟"))),
    (("最高", re.compile("最高|最大|最长|最多")), ("最低", re.compile("最低|最小|最短|最少"))),
    (("上半年", re.compile("上半年")), ("下半年", re.compile("下半年"))),
    (("工作日", re.compile("工作日|周[一二三四五]")),
     ("周末", re.compile("周末|周[六日]|星期[六日天]"))),
    (("国内", re.compile("国内")), ("国际", re.compile("国际|海外|境外"))),
    (("进口", re.compile("进口")), ("出口", re.compile("出口"))),
)


def contrast_filled(query: str, sents: Sequence[str], filled: Callable[[str], bool],
                    focus: Sequence[Term] = ()) -> tuple[str, ...]:
    """The other side of a contrast a question asks, when the passage holds only that side.

    Args:
        query: a question asking a date or a number.
        sents: the passage's sentences.
        filled: whether a text holds a date or a number that could answer.
        focus: the question's focus terms; when sentences holding one (or, for a term holding
            the side asked, its rest beside the other side: 期中考试 for 期末考试) could
            answer, only those count (a timetable's other dates tell of other things).

    Returns:
        The other side's name, for the first pair whose one side the question names (and not
        the other), when every filled clause of the counted sentences names the other side
        and not the one asked; ``()`` when the question names no such side, or a filled
        clause names neither side, or the one asked.
    """
    for (one, one_words), (other, other_words) in CONTRASTS:
        for (asked, asked_words), (name, words) in (((one, one_words), (other, other_words)),
                                                    ((other, other_words), (one, one_words))):
            if asked_words.search(query) and not words.search(query):
                return _other_side(sents, filled, focus, (asked, asked_words), (name, words))
    return ()


def _other_side(sents: Sequence[str], filled: Callable[[str], bool], focus: Sequence[Term],
                asked: tuple[str, re.Pattern[str]], other: tuple[str, re.Pattern[str]]
                ) -> tuple[str, ...]:
    """``contrast_filled`` for one pair: the side asked and the other, each named with words."""
    rests = [r for t in focus for w in (t.surface or t.text,)
             if (r := asked[1].sub("", w)) and r != w]  # 考试 of 期末考试

    words = [t for t in focus if not any(c.isdigit() for c in t.text)]  # 22 of Route 22 names

    def tells(sentence: str) -> bool:
        held = passage_terms(sentence)
        return any(held.has(t) for t in words) or bool(
            other[1].search(sentence) and any(r in sentence for r in rests))

    def sides(text: str) -> frozenset[str]:
        return frozenset({asked[0]} if asked[1].search(text) else
                         {other[0]} if other[1].search(text) else ())

    told = [s for s in sents if tells(s) and filled(s)]
    return kinds_apart(frozenset({asked[0]}), filled_clauses(told or sents, filled, sides))


__all__ = ["CONTRASTS", "contrast_filled"]
