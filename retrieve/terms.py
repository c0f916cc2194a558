"""A query's content terms, their weights, and whether a passage holds them (pure functions).

Terms are what the index searches by (``kb.store.textindex``): words of spaced scripts folded and,
for Latin letters, Snowball-stemmed; Han text cut into words by jieba; Hangul and katakana
runs as whole words; Thai, Lao, Khmer and Myanmar runs cut into ICU dictionary words. Stop and
question words are dropped (``kb.retrieve.stopwords``), and so is a lone letter. A quoted
phrase or hyphenated compound is one term, held only as consecutive words. A Latin name may be
a Chinese name in pinyin, held by Han text reading so (``kb.retrieve.crosslang``: "Lingyin",
灵隐寺).

Each term weighs its idf in the index, ``ln(1 + (N - n + 0.5) / (n + 0.5))`` (the BM25 idf as
Lucene computes it, never negative: Robertson & Zaragoza 2009; Lucene ``BM25Similarity``), so a
common word weighs little and a word in no chunk weighs most, in an index of any size.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from kb.retrieve.crosslang import HAN, han_runs, pinyin_candidate, pinyin_runs, reads_as
from kb.retrieve.lexicon import Lexicon
from kb.retrieve.numerals import arabic_numerals
from kb.retrieve.stopwords import (
    QUESTION_WORDS,
    TITLE_CAPITALISED,
    ZH_ASKING_CHARS,
    ZH_FUNCTION_CHARS,
    fold,
    is_stop,
)
from kb.store.sea_words import SEA_RUN, SEA_SCRIPTS, sea_parts, sea_words
from kb.store.spellings import other_spellings
from kb.store.textindex import (
    CJK_CHARS,
    CJK_RUN,
    acronym_forms,
    cut_words,
    normalise_word,
    split_phrases,
)

# a verb's trailing direction or preposition ("顺延到", "成立于"): the verb is the content word
_ZH_VERB_TAIL = re.compile(r"(?<=..)[到于至在给向]$")
TRANSLATIONS_SEARCHED = 3  # translations per term that match and that recall searches
PASSAGE_CACHE = 4096  # passages whose matchable content is kept (chunks recur across queries)

_KATAKANA = re.compile(r"[\u30a0-\u30ff]+")
_HANGUL = re.compile(r"[\uac00-\ud7af]+")
# Korean particles and polite endings written onto a word (the commonest, longest first)
_KO_ENDING = re.compile(r"(?:입니까|습니까|입니다|습니다|에서|으로|에게|까지|부터|처럼|"
                        r"은|는|이|가|을|를|의|에|로|와|과|도|만)$")
# scripts matched as substrings, with the digits written among them ("满10年")
_SPACELESS = re.compile(f"[{CJK_CHARS}{SEA_SCRIPTS}0-9]+")
_SPACED_WORD = re.compile(rf"[^\W_{CJK_CHARS}{SEA_SCRIPTS}]+")
_WORDS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")  # a question's words ("Coca-Cola" is one)

def is_name(term: Term, query: str) -> bool:
    """Whether the query writes ``term`` as a name (Latin script, accents included).

    A name is a capitalised word not opening the question ("Australia", "DeepMind",
    "Dvořák"), an acronym ("DNC"), or capitalised words joined by hyphens ("Coca-Cola",
    "Saint-Exupéry"); in a query written in title case or capitals nothing is. Title case:
    two or more content words after the first, all capitalised ("What Is The Capital Of
    Australia", "How to Configure the Reverse Proxy"); "When did Hemingway visit Harrow
    Point Lighthouse?" is not (its "visit").
    """
    word = term.surface
    if term.phrase and not _is_hyphenated_name(word):
        return False  # a quoted phrase or a lower-case compound ("long-term")
    if term.spaceless or not _LATIN_NAME.fullmatch(word) or not word[:1].isupper():
        return False
    if is_headline(query):
        return False  # "What Is The Capital Of Australia"
    words = _WORDS.findall(query)
    return (len(word) >= 2 and word.isupper()) or word != (words[0] if words else word)


def is_headline(query: str) -> bool:
    """Whether ``query`` is written in title case, where capitals name nothing.

    Every content word after the opening one (capitalised in any sentence) is capitalised,
    two at least, articles, prepositions and conjunctions either way ("How to Configure the
    Reverse Proxy"); a question word counts ("How long is the Jialing River?" is no headline:
    its "long"), and so does a verb written in lower case (title case, as the Chicago Manual
    of Style sets it, capitalises verbs: "Does the Orion 2 have Wi-Fi?" is a sentence naming
    two things).
    """
    words = _WORDS.findall(query)[1:]
    if any(w.islower() and fold(w) in TITLE_CAPITALISED for w in words):
        return False  # "Does the Orion 2 have Wi-Fi?": a title capitalises its verbs
    rest = [w for w in words if not is_stop(w) or fold(w) in QUESTION_WORDS]
    return len(rest) >= 2 and all(w[:1].isupper() for w in rest)


def _is_hyphenated_name(word: str) -> bool:
    """Capitalised Latin words joined by hyphens: "Coca-Cola", "Retry-After"."""
    parts = word.split("-")
    return len(parts) >= 2 and all(p[:1].isupper() and _LATIN_NAME.fullmatch(p) for p in parts)


@dataclass(frozen=True, slots=True)
class Term:
    """One content term of a query.

    Attributes:
        text: the term as the judge matches it: a stem (spaced scripts), a word (CJK, Thai and
            the other spaceless scripts), or, for a phrase, its tokens joined by spaces.
        spaceless: a word of a script written without spaces, matched as a substring of the
            passage's text in those scripts.
        index_tokens: the index tokens whose chunk frequencies give its idf (a CJK word: its
            character bigrams in order).
        surface: the word as the query wrote it (for diagnostics).
        translations: the term in the other language (``kb.retrieve.lexicon``): English stems for
            a Chinese word, Chinese words for an English stem; a passage holding one of the
            first ``TRANSLATIONS_SEARCHED`` holds the term. For a hyphenated compound, its
            joined form (``email`` for ``e-mail``); for a word with a British or American
            spelling, first the other's stem (``kb.store.spellings``: ``color`` for "colour").
        phrase: a quoted phrase or hyphenated compound, held only as consecutive words.
        pinyin: with a lexicon (the index holds Han text), a capitalised word that may be a
            Chinese name in pinyin, lower case (``kb.retrieve.crosslang``); else empty.
        after_name: for a capitalised word right after such a name ("Tower" of "Yueyang
            Tower"), the name's reading: a word of the name and one more character holds it.
    """

    text: str
    spaceless: bool
    index_tokens: tuple[str, ...]
    surface: str = ""
    translations: tuple[str, ...] = ()
    phrase: bool = False
    pinyin: str = ""
    after_name: str = ""


def content_terms(query: str, lexicon: Lexicon | None = None) -> list[Term]:
    """The query's content terms, distinct, in order (see the module docstring).

    Args:
        query: the question.
        lexicon: translations to attach (Chinese and English), or ``None``.
    """
    out: dict[str, Term] = {}
    phrases, rest = split_phrases(query)
    for clause, raw in phrases:
        tokens, alias = clause[0], tuple(a[0] for a in clause[1:] if len(a) == 1)
        if len(tokens) == 1 or not all(_SPACED_WORD.fullmatch(t) for t in tokens):
            rest += " " + raw  # one word, or a phrase mixing scripts: its words as terms
        else:
            text = " ".join(tokens)
            out.setdefault(text, Term(text, False, tokens, raw, alias, phrase=True))
    for piece in _split_scripts(rest):
        if SEA_RUN.fullmatch(piece):
            words = [(w, tuple(sea_parts(w)[0])) for w in sea_words(piece)]
        elif CJK_RUN.fullmatch(piece):
            words = [(w, tuple(_bigrams(w))) for w in _cjk_words(piece)]
        else:
            named = ""  # the pinyin name just before: "Yueyang" of "Yueyang Tower"
            runs = pinyin_runs(piece, lexicon.chinese, is_stop) if lexicon and not (
                is_headline(query)) else {}  # "Zhou Yuanshan": one name
            before = ""  # the content stem just before ("sick" of "sick leave")
            for w in _SPACED_WORD.findall(piece):
                stem = normalise_word(w)
                if stem and not is_stop(w):
                    alt = lexicon.chinese(stem) if lexicon else ()
                    reading = runs.get(w) or (pinyin_candidate(w, alt) if lexicon else "")
                    head = named if not reading and w[:1].isupper() else ""
                    spelt = [o for s in other_spellings(w)  # "colour": color, first
                             if (o := normalise_word(s)) not in ("", stem)]
                    alt = tuple(dict.fromkeys((*spelt, *alt)))
                    out.setdefault(stem, Term(stem, False, (stem,), w, alt, pinyin=reading,
                                              after_name=head))
                    if before and lexicon and (whole := lexicon.phrase(before, stem)):
                        for s in (before, stem):  # each word holds the phrase's word first
                            out[s] = replace(out[s], translations=tuple(dict.fromkeys(
                                (*whole, *out[s].translations))))
                    named, before = reading, stem
                else:
                    named = before = ""
            continue
        for w, tokens in words:
            if len(w) >= 2 and not is_stop(w):
                alt = lexicon.english(w) if lexicon and HAN.fullmatch(w) else ()
                text = arabic_numerals(w)  # as the passages are matched: 十年 -> 10年
                out.setdefault(text, Term(text, True, tokens, w, alt))
    return list(out.values())


def _cjk_words(run: str) -> list[str]:
    """Words of a CJK run: jieba's for Han text, whole runs of katakana or Hangul.

    Hiragana is left out (in Japanese it carries grammar: particles and endings); a Hangul
    word loses a trailing particle or polite ending (``서울의`` -> ``서울``), which Korean
    writes onto the word it follows.
    """
    out: list[str] = []
    for m in re.finditer(f"{HAN.pattern}|{_KATAKANA.pattern}|{_HANGUL.pattern}", run):
        word = m.group()
        if HAN.fullmatch(word):
            out += _han_words(word)
        elif _HANGUL.fullmatch(word):
            out.append(_KO_ENDING.sub("", word) if len(word) > 2 else word)
        else:
            out.append(word)
    return out


def _han_words(text: str) -> list[str]:
    """Jieba's words of Han text, mended where its dictionary falls short.

    Consecutive single characters none of which carries grammar or asks (``谁``) are one
    word jieba did not know (``年`` ``假`` -> ``年假``); a verb loses a trailing preposition
    (``顺延到`` -> ``顺延``);
    """
    out: list[str] = []
    pending = ""
    for w in [*cut_words(text), ""]:
        if len(w) == 1 and w not in ZH_FUNCTION_CHARS and w not in ZH_ASKING_CHARS:
            pending += w
            continue
        if pending:
            out.append(pending)
            pending = ""
        if w:
            out.append(w)
    return [_ZH_VERB_TAIL.sub("", w) if not is_stop(w) else w for w in out]


def _split_scripts(text: str) -> list[str]:
    """``text`` cut into runs of one spaceless script (CJK; Thai...) and the text between."""
    out: list[str] = []
    last = 0
    for m in re.finditer(f"{CJK_RUN.pattern}|{SEA_RUN.pattern}", text):
        if m.start() > last:
            out.append(text[last:m.start()])
        out.append(m.group())
        last = m.end()
    if last < len(text):
        out.append(text[last:])
    return out


def _bigrams(word: str) -> list[str]:
    """The consecutive character bigrams of a CJK word (its phrase in the index)."""
    return [word[i:i + 2] for i in range(len(word) - 1)] or [word]


def _tokens_of(word: str) -> list[str]:
    return _bigrams(word) if CJK_RUN.fullmatch(word) else [word]


def term_df(term: Term, df: Mapping[str, int]) -> int:
    """Chunks holding the term (an estimate), from its tokens' chunk frequencies.

    A multi-token word cannot be in more chunks than its rarest token, so that token's count
    stands for the word's (an upper bound). A term the index lacks in its own language counts
    by the *most* frequent of the translations that match (``TRANSLATIONS_SEARCHED``): any of
    them may be the one a passage holds, so the term weighs no more than the commonest.
    """
    own = min((df.get(t, 0) for t in term.index_tokens), default=0)
    if own or not term.translations:
        return own
    return max((min((df.get(t, 0) for t in _tokens_of(w)), default=0)
                for w in term.translations[:TRANSLATIONS_SEARCHED]), default=0)


def index_tokens(term: Term) -> list[str]:
    """Every index token whose chunk frequency ``term_df`` may read."""
    out = list(term.index_tokens)
    for w in term.translations[:TRANSLATIONS_SEARCHED]:
        out += _tokens_of(w)
    return out


def translation_tokens(term: Term) -> list[tuple[str, ...]]:
    """A term's searched translations as index-token tuples (a CJK word: its bigram phrase)."""
    return [tuple(_tokens_of(w)) for w in term.translations[:TRANSLATIONS_SEARCHED]]


def phrase_tokens(term: Term) -> list[str]:
    """The index tokens whose phrase finds the term in a chunk (its own form)."""
    return list(term.index_tokens)


def idf_of(term: Term, df: Mapping[str, int], n_chunks: int) -> float:
    """The term's weight: ``ln(1 + (N - n + 0.5) / (n + 0.5))`` with ``n = term_df``, > 0."""
    n = min(term_df(term, df), n_chunks)
    return math.log(1.0 + (n_chunks - n + 0.5) / (n + 0.5))


@dataclass(frozen=True, slots=True)
class PassageTerms:
    """What a passage holds, for term matching.

    Attributes:
        stems: its words in spaced scripts, normalised as the index does.
        spaceless_text: its runs of spaceless scripts (CJK, Thai...), joined without spaces.
        sequence: its normalised words in order, space-separated and padded (phrases).
        han: its Han runs, one per line (a name in pinyin is read within one run).
    """

    stems: frozenset[str]
    spaceless_text: str
    sequence: str = ""
    han: str = ""

    def has(self, term: Term) -> bool:
        """Whether the passage holds ``term``, one of its searched translations, or its pinyin."""
        alternatives = term.translations[:TRANSLATIONS_SEARCHED]
        if term.phrase:
            return f" {term.text} " in self.sequence or any(t in self.stems
                                                              for t in alternatives)
        if term.spaceless:
            return term.text in self.spaceless_text or any(t in self.stems
                                                            for t in alternatives)
        return (term.text in self.stems
                or any(t in self.stems or t in self.spaceless_text for t in alternatives)
                or bool(term.pinyin) and reads_as(self.han, term.pinyin)
                or bool(term.after_name) and reads_as(self.han, term.after_name, headed=True))

    def union(self, other: PassageTerms) -> PassageTerms:
        """What either passage holds (a phrase must lie within one of them)."""
        return PassageTerms(self.stems | other.stems,
                            self.spaceless_text + "\n" + other.spaceless_text,
                            self.sequence + "\n" + other.sequence, self.han + "\n" + other.han)


@lru_cache(maxsize=PASSAGE_CACHE)
def passage_terms(text: str) -> PassageTerms:
    """The matchable content of a passage (see ``PassageTerms``); cached by text."""
    spaced = _SPACED_WORD.findall(text)
    words = [normalise_word(w) for w in spaced]
    forms = [f for w in spaced for f in acronym_forms(w)]  # "SLOs" holds "slo", "SLO" "slos"
    return PassageTerms(frozenset((*words, *forms)),
                        arabic_numerals("".join(_SPACELESS.findall(text))),
                        " " + " ".join(words) + " ", han_runs(text))


def holds_any(text: str, terms: Sequence[Term]) -> bool:
    """Whether ``text`` holds one of ``terms`` (as ``PassageTerms.has`` matches them)."""
    held = passage_terms(text)
    return any(held.has(t) for t in terms)


def coverage(terms: Sequence[Term], weights: Sequence[float], holder: PassageTerms) -> float:
    """Weighted share of ``terms`` the passage holds, in [0, 1] (1.0 when there are none)."""
    total = sum(weights)
    if total <= 0:
        return 1.0
    return sum(w for t, w in zip(terms, weights, strict=True) if holder.has(t)) / total


# Latin letters with their accents (Latin-1 Supplement to Latin Extended-B), digits, hyphens
_LATIN_NAME = re.compile(r"[A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f'-]+")
