"""Ordinals a question asks of a kind, and whether a passage numbers that kind otherwise.

"第三届读书节是哪一天举办的？" is not answered by a passage on 第二届 and 第四届, nor "Who
ruled Sicily in the 12th century?" by one on the 11th: the passage tells of another item of
the kind asked. ``ordinals_apart`` says so (``kb.retrieve.judge`` then fails the passage at
its evidence gate); a passage writing the ordinal asked in any form decides nothing.
Pure functions.
"""

from __future__ import annotations

import re
import unicodedata

from kb.retrieve.numbers import _ORDINALS, _ZH_NUMERAL, WORD_VALUE, _roman_value
from kb.retrieve.numerals import arabic_numerals
from kb.store.textindex import has_cjk

# an ordinal of a kind: 第三部, 第一季度, 第 2 届, 首届 (the first: 首 before a counter); "the
# third Crusade", "fourth quarter", "3rd edition", "twenty-first century" (the kind: the word
# after it)
_ZH_ORDINAL = re.compile(rf"(?:第\s*([{_ZH_NUMERAL}廿\d]+)|(首))\s*([\u4e00-\u9fff]?)")
_ZH_FIRST_COUNTERS = frozenset("次届部个批期季位款场轮座条家代")  # 首都 is no "first"
# 第二、三季度, 第二至四届: the numbers listed after the first share its 第 and its counter
_ZH_LISTED = re.compile(rf"第\s*[{_ZH_NUMERAL}廿\d]+\s*((?:[、,，和及与至到~～-]\s*"
                        rf"[{_ZH_NUMERAL}廿\d]+\s*)+)([\u4e00-\u9fff])")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_EN_ORDINAL = re.compile(rf"(?<![\w-])(?:({'|'.join(_TENS)})[\s-])?({'|'.join(_ORDINALS)}|"
                         r"\d+(?:st|nd|rd|th))\b(?:[\s-]+([A-Za-z]{3,}))?", re.I)
_ONE = rf"({'|'.join(_ORDINALS)}|\d+(?:st|nd|rd|th))"
_EN_RANGE = re.compile(rf"(?i)\b{_ONE}\s*(?:to|through|thru|-|–)\s*{_ONE}\b")
# kinds too general to tell two items apart: "the second time", 第一名 (a rank), 第二天 (the next
# day), "World War II" (written as a Roman numeral)
_NOT_KINDS = frozenset("and the for with than from that this which who was were has had are "
                       "one time times place day half world 次 名 位 个 天 年 种 点".split())


def _ordinals(text: str, *, asked: bool) -> tuple[set[tuple[str, str]], set[str]]:
    """The (number, kind) of each ordinal ``text`` writes of a kind, and every ordinal's number.

    Kinds: ``("3", "部")``, ``("4", "quarter")``; numbers of a kind or not (第二, "fourth").
    With ``asked`` (a question's), English "first" is left out, as ``named_numbers`` does
    ("When was it first used?"); a Chinese 第一 / 首 before a counter is an ordinal. ``text``
    is NFKC-normalised (``ordinals_apart``).
    """
    kinds, values = set(), set()
    for m in _ZH_LISTED.finditer(text):  # 第二至四届: the third too
        numbers = [int(v) for n in re.findall(rf"[{_ZH_NUMERAL}廿\d]+", m[0][:-1])
                   if (v := arabic_numerals(n.replace("廿", "二十"))).isdigit()]
        ranged = re.search(r"[至到~～-]", m[1]) and len(numbers) == 2 and numbers[0] < numbers[1]
        for number in range(numbers[0], numbers[1] + 1) if ranged else numbers:
            values.add(str(number))
            kinds.update([(str(number), m[2])] if m[2] not in _NOT_KINDS else [])
    for m in _ZH_ORDINAL.finditer(text):
        value = "1" if m[2] else arabic_numerals(m[1].replace("廿", "二十"))
        if not value.isdigit() or m[2] and m[3] not in _ZH_FIRST_COUNTERS:
            continue
        values.add(value := value.lstrip("0") or "0")
        if m[3] and m[3] not in _NOT_KINDS:
            kinds.add((value, m[3]))
    for m in _EN_RANGE.finditer(text):  # "the second to fifth Games": the third too
        low, high = (int(WORD_VALUE.get(w.lower()) or w.rstrip("stndrh")) for w in m.groups())
        values.update(str(n) for n in range(low, high + 1) if high - low < 100)
    listed: list[str] = []  # "the third and fourth films": the third's kind is the films
    for m in _EN_ORDINAL.finditer(text):
        word, kind = m[2].lower(), (m[3] or "").lower()
        number = int(WORD_VALUE.get(word) or word.rstrip("stndrh"))
        value = str(number + 10 * (_TENS.index(m[1].lower()) + 2) if m[1] else number)
        values.add(value)
        if kind in ("and", "or"):
            listed.append(value)
            continue
        held, listed = [*listed, value], []
        if kind and kind not in _NOT_KINDS:
            kind = kind[:-1] if kind.endswith("s") and not kind.endswith("ss") else kind
            kinds.update((v, kind) for v in held if not (asked and v == "1" and word == "first"))
    return kinds, values


def ordinals_apart(query: str, text: str) -> tuple[str, ...]:
    """The ordinals a question asks of when ``text`` numbers their kind by others only.

    "第二季度的营业收入" against a report writing 第一季度 alone, "the third Crusade" against a
    passage on the First and Second Crusades: the passage tells of another of the kind. A
    passage that writes one of the ordinals asked in any way ("the fourth and final film",
    位居第二, "the 3rd", "Film 3", "twenty-first"), or never numbers a kind asked, decides
    nothing (it may tell of it in other words: "the last film", "Q2").

    Returns:
        ``"3 部"``-like strings, sorted, when every ordinal asked is apart; else ``()``.
    """
    asked, _ = _ordinals(unicodedata.normalize("NFKC", query), asked=True)
    if not asked:
        return ()
    text = unicodedata.normalize("NFKC", text)  # once, for every reading below ("Film Ⅲ")
    written, values = _ordinals(text, asked=False)
    for value, kind in asked:
        numbered = {v for v, k in written if k == kind}
        if not numbered or value in values or value in _numbered_after(kind, text):
            return ()
    return tuple(sorted(f"{v} {k}" for v, k in asked))


# a kind's short form before its number ("Vol. 4", "Ch. 3", "Ep 5", "No. 2")
_KIND_SHORT = {"volume": "vol", "chapter": "ch", "episode": "ep", "edition": "ed",
               "number": "no"}


def _numbered_after(kind: str, text: str) -> set[str]:
    """The numbers ``text`` gives the kind in other forms than an ordinal before it.

    After the word or its short form ("Film 3", "Part II", "round two", "Vol. 4"), before a
    Chinese counter without 第 (三季度 in a report), and a quarter as "Q3" or "3Q". ``text``
    is NFKC-normalised.
    """
    found = set()
    names = "|".join(re.escape(k) for k in (kind, _KIND_SHORT.get(kind)) if k)
    for n in re.findall(rf"(?i)\b(?:{names})s?\b\W{{0,2}}(\d+|[IVX]+|[a-z]+)\b", text):
        roman = re.fullmatch(r"(X{0,3})(IX|IV|V?I{0,3})", n)
        found.add(n.lstrip("0") if n.isdigit() else _roman_value(roman) if roman
                  else WORD_VALUE.get(n.lower(), ""))
    if has_cjk(kind):
        found.update(arabic_numerals(n.replace("廿", "二十")).lstrip("0") for n in
                     re.findall(rf"([{_ZH_NUMERAL}廿\d]+)\s*{re.escape(kind)}", text))
    if kind in ("quarter", "季"):
        found.update(a or b for a, b in re.findall(r"\bQ([1-4])\b|\b([1-4])Q\b", text))
    return found
