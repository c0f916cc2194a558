"""Another member of a list the passage makes: 血橙's shelf life for 脐橙's (pure functions).

"果园的脐橙保质期是多久？" against "供货：脐橙、血橙、沃柑" and "保质期：血橙 20 天，沃柑 15 天":
the passage lists the thing asked among others (its *mates*), then gives the date or number
asked only of the mates (a new-user trial's supplier note, 92% and 78% before). ``mates_filled``
finds the lists a passage makes (items joined by 、, or short items after a colon joined by
commas and "and"/"or"; not numbered lines, "4、利润表"), the list holding one item the question
names, and says when every clause holding a filler that could answer, among the sentences of
the list's section, names a mate and not the item asked; a clause naming no item ("保质期均为
20 天", "30 天（血橙除外）", "all keep for 20 days") or the item asked may answer: then nothing is
decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.retrieve.answer_types import HEADING

# a list's frame: what stands between a colon (or the sentence's start) and the next break
_FRAMES = re.compile(r"[：:，,；;。.!?！？()（）]")
_ZH_SEPARATOR = "、"
# an English list after a colon: "Supplies: twists, rice crackers and nougat"
_EN_AFTER_COLON = re.compile(r":\s*([^:;.!?]+)")
_EN_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_EN_ITEM = re.compile(r"[A-Za-z0-9][\w'&+-]*(?:\s+[\w'&+-]+){0,2}")  # one to three words
_NUMERAL = re.compile(r"[\s(（]*(?:第?[\d零一二三四五六七八九十百]+|[A-Za-z])[)）.]?\s*")
ITEM_MAX_CHARS = 12  # a list item is a short name, not a clause
_CLAUSE = re.compile(r"[，,；;。()（）]|\n")  # a sentence's clauses, each read alone


def _lists(sentence: str) -> list[list[str]]:
    """The lists of ``sentence``: 、-joined Chinese items, or short English items after a colon."""
    found = []
    for frame in _FRAMES.split(sentence):
        if _ZH_SEPARATOR in frame:
            items = [i.strip() for i in frame.split(_ZH_SEPARATOR)]
            if all(0 < len(i) <= ITEM_MAX_CHARS and not _NUMERAL.fullmatch(i) for i in items):
                found.append(items)  # not "4、母公司利润表", "一、营业收入": numbered lines
    for m in _EN_AFTER_COLON.finditer(sentence):
        items = [i.strip() for i in _EN_SEPARATOR.split(m.group(1).strip())]
        if len(items) >= 2 and all(_EN_ITEM.fullmatch(i) and len(i) <= 3 * ITEM_MAX_CHARS
                                   for i in items):
            found.append(items)
    return found


def _names(text: str, item: str) -> bool:
    """Whether ``text`` names ``item`` (whole words for a Latin item; case-insensitive)."""
    if item.isascii():
        return re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", text, re.I) is not None
    return item in text


def _section(sents: Sequence[str], at: int) -> Sequence[str]:
    """The sentences of sentence ``at``'s section: between the heading lines around it."""
    start = max((i + 1 for i in range(at) if HEADING.match(sents[i])), default=0)
    end = min((i for i in range(at + 1, len(sents)) if HEADING.match(sents[i])),
              default=len(sents))
    return sents[start:end]


def mates_filled(query: str, sents: Sequence[str], filled: Callable[[str], bool]
                 ) -> tuple[str, ...]:
    """The other members of a list the passage makes, when only they hold the answer asked.

    Args:
        query: a question asking a date or a number.
        sents: the passage's sentences.
        filled: whether a text holds a date or a number that could answer.

    Returns:
        The mates named instead (sorted), for the first list holding exactly one item the
        question names, when every clause holding a filler in the list's section (between
        Markdown heading lines) names one of the list's other items and not the one asked;
        ``()`` otherwise: a clause naming no item ("30 天（血橙除外）", "其余都是 10 天") or the
        item asked may answer, and so may a section of the passage headed by the item asked.
    """
    for at, sentence in enumerate(sents):
        for items in _lists(sentence):
            asked = [i for i in items if _names(query, i)]
            mates = [i for i in items if i not in asked]
            if len(asked) != 1 or not mates:
                continue
            if any(HEADING.match(x) and _names(x, asked[0]) for x in sents):
                return ()
            named: set[str] = set()
            for clause in (c for x in _section(sents, at) for c in _CLAUSE.split(x)):
                if not filled(clause):
                    continue
                of = {m for m in mates if _names(clause, m)}
                if not of or _names(clause, asked[0]):
                    return ()
                named |= of
            return tuple(sorted(named))
    return ()


__all__ = ["mates_filled"]
