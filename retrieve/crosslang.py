"""Across languages: a text's script, and Chinese names written in pinyin (pure functions).

``script_of`` tells the judge whether a question and a passage are in different scripts (its
``cross_language`` signal). An English question over Chinese text names its people and places
in pinyin ("Lingyin Temple", "Cen Langtian"), and CC-CEDICT (``kb.retrieve.lexicon``) lacks
most such names. A capitalised Latin word is a candidate (``pinyin_candidate``); a passage
holds it when its Han text reads so, toneless, over two to ``PINYIN_MAX_SYLLABLES``
consecutive characters (``pinyin_readings``; readings by ``pypinyin``, MIT, whose phrase
dictionary picks a character's reading in context). ``kb.retrieve.terms.PassageTerms.has``
uses both.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kb.store.textindex import CJK_CHARS

# A name in pinyin matches two to six consecutive Han characters: one syllable ("Cen", "Li")
# reads too many characters to say anything, and Chinese names of places and people are short
PINYIN_MAX_SYLLABLES = 6
PINYIN_MIN_LETTERS = 4  # the shortest two-syllable reading kb matches ("Xiao" is one, "Anji")
PINYIN_CACHE = 4096  # passages whose readings are kept (as kb.retrieve.terms.PASSAGE_CACHE)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def pinyin_candidate(word: str) -> str:
    """``word`` in lower case if it may be a Chinese name in pinyin, else ``""``.

    A capitalised word of ASCII letters only, at least ``PINYIN_MIN_LETTERS`` long. Also when
    CC-CEDICT translates it: its entry for 金华 reads "Jinhua prefecture level city in
    Zhejiang", too long a sense to map "jinhua" back, which then searches 金华火腿 (Jinhua ham).
    """
    if len(word) < PINYIN_MIN_LETTERS or not word.isascii():
        return ""
    return word.lower() if word.isalpha() and word[0].isupper() else ""


@lru_cache(maxsize=PINYIN_CACHE)
def pinyin_readings(text: str) -> frozenset[str]:
    """Toneless pinyin of every 2 to ``PINYIN_MAX_SYLLABLES`` consecutive Han characters.

    Readings by ``pypinyin.lazy_pinyin`` (its phrase dictionary picks a character's reading
    in context); ü is written both ``v`` (pypinyin's) and ``u`` (as English text writes
    "Lu Xun"). Cached by text; computed only when a query holds a pinyin candidate.
    """
    from pypinyin import lazy_pinyin

    out: set[str] = set()
    for run in _HAN.findall(text):
        syllables = lazy_pinyin(run)
        for i in range(len(syllables) - 1):
            for j in range(i + 2, min(len(syllables), i + PINYIN_MAX_SYLLABLES) + 1):
                reading = "".join(syllables[i:j])
                out.add(reading)
                if "v" in reading:
                    out.add(reading.replace("v", "u"))
    return frozenset(out)


_CJK_LETTER = re.compile(f"[{CJK_CHARS}]")
_LETTER = re.compile(r"[^\W\d_]")


def script_of(text: str) -> str:
    """The script of ``text`` for the judge's cross-language signal.

    Returns:
        ``cjk`` when at least a third of its letters are CJK, ``latin`` when it has other
        letters, ``none`` without letters.
    """
    letters = len(_LETTER.findall(text))
    if letters == 0:
        return "none"
    return "cjk" if len(_CJK_LETTER.findall(text)) * 3 >= letters else "latin"
