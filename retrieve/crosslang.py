"""Across languages: a text's script, and Chinese names written in pinyin (pure functions).

``script_of`` tells the judge whether a question and a passage are in different scripts (its
``cross_language`` signal). An English question over Chinese text names its people and places
in pinyin ("Lingyin Temple", "Cen Langtian"), and CC-CEDICT (``kb.retrieve.lexicon``) lacks
most such names. A capitalised word spelling two or more pinyin syllables, and not an
English word CC-CEDICT translates otherwise, is a candidate (``pinyin_candidate``); a passage
holds it when one run of its Han text reads so, toneless, over two to
``PINYIN_MAX_SYLLABLES`` consecutive characters, any reading of each counting (``reads_as``;
the readings are ``pypinyin``'s character dictionary, MIT). A name written as several words
("Zhou Yuanshan", "Lin Junxian", "Fan Tingsong") is read whole (``pinyin_runs``): the
surname alone is one syllable, and a passage writing the given name alone may be of another.
``kb.retrieve.terms.PassageTerms.has`` uses both.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

from kb.store.textindex import CJK_CHARS, cut_words, normalise_word

# A name in pinyin is two to six syllables ("Lingyin", "Langtian"): one syllable ("Cen", "Xiao")
# reads too many characters to say anything, and Chinese names of places and people are short
PINYIN_MAX_SYLLABLES = 6
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")  # Han runs, as kb reads them
_ASCII_WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=1)
def _characters() -> dict[str, frozenset[str]]:
    """Toneless syllable -> the Han characters with that reading (pypinyin's dictionary).

    Every reading of a character counts (长 is both chang and zhang); ü is written ``v``
    ("lv") and, as English text often writes it, ``u`` ("Lu" for 吕). Syllables without a
    vowel (the interjections "n", "ng", "hm") are left out. Built once, about 0.2 s.
    """
    from pypinyin.pinyin_dict import pinyin_dict

    out: dict[str, set[str]] = {}
    for code, readings in pinyin_dict.items():
        for reading in readings.split(","):
            plain = unicodedata.normalize("NFD", reading).replace("u\u0308", "v")
            plain = "".join(c for c in plain if not unicodedata.combining(c))
            if (_ASCII_WORD.fullmatch(plain) and re.search("[aeiouv]", plain)
                    and HAN.fullmatch(chr(code))):  # a character kb's Han runs hold
                for spelling in {plain, plain.replace("v", "u")}:
                    out.setdefault(spelling, set()).add(chr(code))
    return {k: frozenset(v) for k, v in out.items()}


def syllables() -> frozenset[str]:
    """Every toneless pinyin syllable the dictionary holds (ü as ``v`` and as ``u``)."""
    return frozenset(_characters())


@lru_cache(maxsize=1024)
def segmentations(word: str) -> tuple[tuple[str, ...], ...]:
    """The ways ``word`` (lower case) spells two to ``PINYIN_MAX_SYLLABLES`` syllables.

    Pinyin orthography (GB/T 16159) writes an apostrophe before a syllable opening with a, o
    or e that follows another ("Xi'an"), so a word spelt without one is not parsed that way:
    "xiao" and "tian" are one syllable each (no segmentation), "jinhua" is jin-hua.
    """
    known = _characters()
    longest = max(map(len, known))  # "zhuang", "shuang": 6 letters
    ways: list[list[tuple[str, ...]]] = [[] for _ in range(len(word) + 1)]
    ways[0].append(())
    for i in range(len(word)):
        for j in range(i + 1, min(len(word), i + longest) + 1):
            piece = word[i:j]
            if piece in known and (i == 0 or piece[0] not in "aoe"):
                ways[j] += [w + (piece,) for w in ways[i] if len(w) < PINYIN_MAX_SYLLABLES]
    return tuple(w for w in ways[len(word)] if len(w) >= 2)


def pinyin_candidate(word: str, translations: tuple[str, ...] = ()) -> str:
    """``word`` in lower case (ü as ``v``) if it may be a Chinese name in pinyin, else "".

    A capitalised word spelling two or more syllables (``segmentations``) that CC-CEDICT
    does not translate, or translates into a word reading so ("Jinhua": 金华火腿). An English
    word is a name only by accident: "Women" (wo-men) translates to 妇女, "Side" to 边, and
    neither reads as itself, so neither is tried.

    Args:
        word: the word as the question writes it.
        translations: its Chinese translations (``kb.retrieve.lexicon.Lexicon.chinese``).
    """
    low = word.lower().replace("ü", "v")
    if not word[:1].isupper() or not _ASCII_WORD.fullmatch(low) or not segmentations(low):
        return ""
    if translations and not any(reads_as(han_runs(t), low) for t in translations):
        return ""
    return low


def pinyin_runs(text: str, translations: Callable[[str], Sequence[str]],
                stop: Callable[[str], bool]) -> dict[str, str]:
    """Runs of capitalised words that together spell one Chinese name in pinyin.

    Two or more capitalised words with only spaces between them, together two to
    ``PINYIN_MAX_SYLLABLES`` syllables (``segmentations`` of their joined spelling), each a
    word of one syllable or a word CC-CEDICT does not translate of two or three ("Yuanshan");
    a one-syllable word only as the surname or the one-syllable given name after it ("Zhou",
    "Fan Tingsong", "Liu Jie": CC-CEDICT gives most single syllables as English words or
    surnames, so whether it translates them says nothing).
    Punctuation and stop words end a run ("Li Bai, Du Fu"; "Can Lin Junxian"), and so does a
    word CC-CEDICT translates ("Bicheng Lake": "Lake" is la-ke, the lake's name "Bicheng").

    Args:
        text: a question's Latin text.
        translations: a word's CC-CEDICT translations, by its stem
            (``kb.retrieve.lexicon.Lexicon.chinese``).
        stop: whether a word is a stop or question word (``kb.retrieve.terms.is_stop``).

    Returns:
        Each word of such a run, as written -> the run's reading in lower case
        (``"Zhou"`` -> ``"zhouyuanshan"``); empty when there is none.
    """
    out: dict[str, str] = {}
    for chunk in re.split(r"[^A-Za-z\s]+", text):  # punctuation, digits, accents end a run
        run: list[str] = []
        for word in [*chunk.split(), ""]:
            low = word.lower()
            one = low in _characters()
            capital = bool(word) and word[:1].isupper() and not stop(word)
            if capital and (
                    one and (not run or len(run) == 1 and run[0].lower() in _characters())
                    or not translations(normalise_word(word))
                    and any(len(w) <= 3 for w in segmentations(low))):
                run.append(word)
                continue
            joined = "".join(run).lower()
            if len(run) >= 2 and segmentations(joined):
                out.update((w, joined) for w in run)
            run = [word] if capital and one else []  # a surname may open the next run
    return out


def han_runs(text: str) -> str:
    """The Han runs of ``text``, one per line (punctuation, spaces and Latin text end a run)."""
    return "\n".join(HAN.findall(text))


def reads_as(runs: str, reading: str, headed: bool = False) -> bool:
    """Whether consecutive characters of one run read as ``reading`` (any of their readings).

    Args:
        runs: Han runs, one per line (``han_runs``).
        reading: a pinyin candidate (``pinyin_candidate``); a word of no segmentation reads
            as nothing.
        headed: the characters and one more must make a word (jieba's cut of the run):
            岳阳楼 for "Yueyang Tower", the name and its head noun; not 岳阳/在.
    """
    pattern = _reading_pattern(reading, headed)
    if pattern is None:
        return False
    if not headed:
        return pattern.search(runs) is not None
    return any(pattern.fullmatch(word) for run in runs.split("\n") if pattern.search(run)
               for word in _words(run))


@lru_cache(maxsize=1024)
def _words(run: str) -> tuple[str, ...]:
    """Jieba's words of a Han run (``kb.store.textindex.cut_words``), cached per run."""
    return tuple(cut_words(run))


@lru_cache(maxsize=256)
def _reading_pattern(reading: str, headed: bool = False) -> re.Pattern[str] | None:
    """A regular expression matching the characters that read as ``reading``, in order.

    One character class per syllable (a line break in none, so a match stays in one run), the
    segmentations as alternatives; compiled once per name, then searched in C.
    """
    table = _characters()
    ways = ["".join("[" + re.escape("".join(sorted(table[s]))) + "]" for s in way)
            for way in segmentations(reading)]
    if not ways:
        return None
    return re.compile("(?:" + "|".join(ways) + ")" + ("[^\\n]" if headed else ""))


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
