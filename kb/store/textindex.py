"""Text as the full-text index sees it: one tokenizer for index and query, and safe MATCH.

FTS5's ``unicode61`` tokenizer splits on non-letters only, so a Chinese sentence would become one
giant token, and the ``trigram`` tokenizer cannot match 2-character words. kb therefore tokenizes
in Python, identically at index and query time, and hands FTS5 space-separated tokens:

* Latin and other alphabetic words: NFKD diacritic folding, lower-casing, then the Snowball
  English stemmer (Porter2, https://snowballstem.org/algorithms/english/stemmer.html).
* Runs of CJK characters: overlapping character bigrams (``计算机`` -> ``计算 算机``, the approach
  of Lucene's CJKBigramFilter), so every 2-character word inside a sentence is findable, plus
  jieba's search-mode words of 3+ characters, which reward whole-word matches.
* Runs of Thai, Lao, Khmer or Myanmar: grapheme-cluster bigrams plus ICU dictionary words
  (``kb.store.sea_words``).

A text's *sequence* tokens (words, bigrams) come first, in order, and the *extra* whole-word
tokens (jieba's, ICU's) after all of them, so consecutive words are consecutive tokens and an
FTS5 phrase matches them; BM25 sees the same bag of tokens either way.

Because the tokens are ours, their document frequencies can be read back from ``fts5vocab``
(used by retrieval to put BM25 on an absolute per-query scale). The recipe is recorded in the
index as ``TOKENIZER_FINGERPRINT``; an index built with another recipe is rebuilt from its
chunks when opened (``kb.store``).

Queries (``keyword_query``): a ``"quoted phrase"`` (straight or curly quotes) and a hyphenated
compound (``state-of-the-art``, ``e-mail``) are each one *phrase clause*, matched as consecutive
tokens (a compound also as its joined form, ``email``); the other words are OR-ed terms, English
stopwords dropped. User text never reaches MATCH raw: ``match_expression`` quotes each term and
phrase, and tokens hold only letters, digits and marks, so quotes, ``*``, ``^``, ``:``, ``-``,
AND/OR/NOT/NEAR and emoji are inert.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kb.config import default_cache_dir
from kb.store.sea_words import SEA_RUN, SEA_SCRIPTS, sea_parts
from kb.store.spellings import other_spellings

# v2: Thai/Lao/Khmer/Myanmar segmented (icu4py 1.2.0 = ICU 78), extra tokens after the sequence,
# FTS5 keeping combining marks inside tokens (schema migration 3).
# v3: an acronym's other number as an extra token ("SLOs" also writes "slo": ``acronym_forms``).
TOKENIZER_FINGERPRINT = ("kb-fts-v3:nfkd-fold+snowball-english+acronym-forms|cjk-bigram+jieba3|"
                         "sea-cluster-bigram+icu78-words|extras-last:unicode61-marks")
_ACRONYM = re.compile(r"[A-Z]{2,}s?")  # capitals, and a small "s" for the plural

# Han (incl. ext. A and compatibility), Hiragana, Katakana, Hangul syllables.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
CJK_CHARS = _CJK  # the CJK ranges kb tokenizes as bigrams (Han, kana, Hangul)
CJK_RUN = _CJK_RUN
_WORD = re.compile(rf"[{_CJK}]+|[{SEA_SCRIPTS}]+|[^\W_{_CJK}{SEA_SCRIPTS}]+")
# Quoted phrases: "straight" or “curly” double quotes (typed by macOS and phones).
_QUOTED = re.compile(r'"([^"]*)"|\u201c([^\u201d]*)\u201d')
# Hyphenated compounds: word, then hyphen (-, U+2010, U+2011) and word, repeated; a comma
# between digits joins too (chemical locants: phosphatidylinositol-3,4-bisphosphate).
_PIECE = rf"(?:[^\W_]|[{SEA_SCRIPTS}])+"
_HYPHENATED = re.compile(rf"{_PIECE}(?:(?:[-\u2010\u2011]|(?<=\d),(?=\d)){_PIECE})+")
_DASH = re.compile(r"[-\u2010\u2011]")
_HYPHENS = re.compile(r"[-\u2010\u2011,]")
_init_lock = threading.Lock()

# Query-side stopwords: terms so common that OR-ing them only adds noise candidates.
# (A subset of the SMART / Lucene English stopword lists.)
STOPWORDS = frozenset(
    """a an and are as at be but by for from has have how i if in into is it its of on or
    such that the their then there these they this to was were what when where which who why
    will with do does did can could should would not no you your we our""".split()
)


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba

    # its dictionary cache in the user's cache folder: the shared /tmp/jieba.cache of another
    # user cannot be rewritten; where none can be written, jieba loads its dictionary without
    # the cache, and says so only at CRITICAL (it printed a traceback on the first search)
    folder = default_cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        jieba.dt.tmp_dir = str(folder)
    except OSError:  # no writable cache folder: jieba's default
        pass
    jieba.setLogLevel(logging.CRITICAL)
    with _init_lock:
        jieba.initialize()
    return jieba


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def normalise_word(word: str) -> str:
    """Fold diacritics, lower-case and stem one non-CJK word."""
    folded = unicodedata.normalize("NFKD", word)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    if not folded.isascii() or not folded.isalpha():
        return folded
    with _init_lock:  # snowballstemmer objects are not thread-safe
        return str(_stemmer().stemWord(folded))


def acronym_forms(word: str) -> list[str]:
    """An acronym's other number, stemmed, when it stems apart (``SLOs``: ``slo``; else ``[]``).

    ``SLO`` gives ``slos``; any other word, or an acronym whose two numbers stem alike
    (``NASA``), gives ``[]``.

    Snowball keeps a plural "s" after a vowel ("slos"), so "the SLO" never matched "our SLOs"
    (a trial's runbook question was refused for it). The index writes the other form as an
    extra token, and a passage holds it, so either number finds both; a lower-case plural
    ("gpus") still finds "GPUs" by the plural's own stem.
    """
    if _ACRONYM.fullmatch(word) and not word.endswith("S"):  # "UPS", "GPS": no plural asked
        other = word[:-1] if word.endswith("s") else word + "s"
        form = normalise_word(other)
        return [form] if form != normalise_word(word) else []
    return []


def cjk_tokens(run: str) -> list[str]:
    """Tokens for one run of CJK characters: bigrams plus jieba words of 3+ characters.

    Args:
        run: a string made only of CJK characters.

    Returns:
        Tokens in order; a 1-character run yields itself.
    """
    sequence, extras = _cjk_parts(run)
    return sequence + extras


def _cjk_parts(run: str) -> tuple[list[str], list[str]]:
    if len(run) == 1:
        return [run], []
    sequence = [run[i : i + 2] for i in range(len(run) - 1)]
    if len(run) < 3:
        return sequence, []
    return sequence, [w for w in _jieba().cut_for_search(run) if len(w) >= 3]


def token_parts(text: str, *, drop_stopwords: bool = False) -> tuple[list[str], list[str]]:
    """The sequence tokens of ``text`` in order, and its extra whole-word tokens in order.

    Args:
        text: any text.
        drop_stopwords: drop English stopwords (query side).

    Returns:
        (words and bigrams as they follow each other; jieba and ICU dictionary words).
    """
    sequence: list[str] = []
    extras: list[str] = []
    for word in _WORD.findall(text):
        if _CJK_RUN.fullmatch(word):
            seq, extra = _cjk_parts(word)
        elif SEA_RUN.fullmatch(word):
            seq, extra = sea_parts(word)
        elif drop_stopwords and word.lower() in STOPWORDS:
            continue
        else:  # the index writes an acronym in both numbers; a query needs its own only
            # (both would count one word twice in BM25)
            seq = [normalise_word(word)]
            extra = [] if drop_stopwords else acronym_forms(word)
        sequence.extend(t for t in seq if t)
        extras.extend(t for t in extra if t)
    return sequence, extras


def tokenize(text: str, *, drop_stopwords: bool = False) -> list[str]:
    """The index tokens of ``text``: sequence tokens in order, then the extra tokens.

    Args:
        text: any text.
        drop_stopwords: drop English stopwords (query side).
    """
    sequence, extras = token_parts(text, drop_stopwords=drop_stopwords)
    return sequence + extras


def index_body(context_prefix: str, text: str) -> str:
    """The string stored in the FTS5 index for one chunk: tokens of prefix + text."""
    return " ".join(tokenize(f"{context_prefix}\n{text}"))


def query_terms(query: str) -> list[str]:
    """Distinct search terms of a user query, in first-seen order.

    English stopwords are dropped unless nothing else is left.

    Returns:
        Index tokens; empty when the query has no word characters.
    """
    terms = list(dict.fromkeys(tokenize(query, drop_stopwords=True)))
    return terms or list(dict.fromkeys(tokenize(query)))


Clause = tuple[tuple[str, ...], ...]  # alternatives, each a token sequence (1 token: a term)


@dataclass(frozen=True, slots=True)
class KeywordQuery:
    """A user query as FTS5 clauses, OR-ed together.

    Attributes:
        clauses: each clause is a tuple of alternatives; an alternative of one token is a
            term, of several a phrase (consecutive tokens). Distinct, in first-seen order.
    """

    clauses: tuple[Clause, ...]

    @property
    def terms(self) -> list[str]:
        """Every distinct token of every clause, in order (for scans that know no phrases)."""
        return list(dict.fromkeys(t for clause in self.clauses for alt in clause for t in alt))


def split_phrases(query: str) -> tuple[list[tuple[Clause, str]], str]:
    """The quoted phrases and hyphenated compounds of a query, and the text left around them.

    Returns:
        (per phrase, in query order, its clause as in ``keyword_query`` and its text as
        written; the rest of the query with each phrase replaced by a space).
    """
    clauses: list[tuple[Clause, str]] = []

    def phrase(match: re.Match[str]) -> str:
        text = next(g for g in match.groups() if g is not None) if match.groups() else match[0]
        if match.re is _HYPHENATED and not _DASH.search(text):
            return text  # digits and commas only (1,000): ordinary terms
        tokens = tuple(token_parts(text)[0])
        if len(tokens) > 1 and match.re is _HYPHENATED:
            joined = tuple(tokenize(_HYPHENS.sub("", text)))
            clauses.append(((tokens, joined) if len(joined) == 1 else (tokens,), text))
        elif tokens:
            clauses.append(((tokens,) if len(tokens) > 1 else ((tokens[0],),), text))
        return " "

    rest = _HYPHENATED.sub(phrase, _QUOTED.sub(phrase, query))
    return clauses, rest


def keyword_query(query: str) -> KeywordQuery:
    """The FTS5 clauses of a user query: quoted phrases, hyphenated compounds, then terms.

    A quoted phrase keeps its stopwords (``"the state of the art"``); one whose content is a
    single token is a term. A hyphenated compound is the phrase of its words or, as an
    alternative, its joined form (``e-mail``: ``"e mail"`` or ``email``). The remaining words
    are terms with English stopwords dropped, unless nothing at all would be left; a word
    with a British or American spelling searches both (``kb.store.spellings``: "colour" or
    ``color``). An unbalanced quote is punctuation.

    Returns:
        Clauses in query order; empty when the query has no word characters.
    """
    phrases, rest = split_phrases(query)
    clauses = [clause for clause, _ in phrases]
    terms = tokenize(rest, drop_stopwords=True)
    if not clauses and not terms:
        terms = tokenize(rest)
    other = {normalise_word(w): tuple((normalise_word(o),) for o in others)
             for w in _WORD.findall(rest) if (others := other_spellings(w))}
    clauses.extend(tuple(dict.fromkeys(((t,), *other.get(t, ())))) for t in terms)
    return KeywordQuery(tuple(dict.fromkeys(clauses)))


def match_expression(query: KeywordQuery | Sequence[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing every quoted term and phrase, or ``None`` when empty.

    Args:
        query: a parsed query, or plain terms (each a clause of its own).
    """
    clauses = query.clauses if isinstance(query, KeywordQuery) else tuple(
        ((t,),) for t in query)
    alternatives = [phrase_expression(alt) for clause in clauses for alt in clause]
    return " OR ".join(alternatives) or None


def matched_tokens(body: str, alternatives: Sequence[Sequence[str]]) -> frozenset[str]:
    """The tokens of ``body`` FTS5's ``highlight()`` marks for an OR of ``alternatives``.

    Args:
        body: an index body (tokens joined by single spaces, ``index_body``).
        alternatives: terms and phrases, each a sequence of index tokens.

    Returns:
        The tokens of every alternative that occurs in ``body`` as consecutive tokens.
    """
    padded = f" {body} "
    present = set(body.split())
    return frozenset(t for alt in alternatives
                     if (alt[0] in present if len(alt) == 1 else f" {' '.join(alt)} " in padded)
                     for t in alt)


def fts_plain(text: str) -> bool:
    """Whether FTS5's tokenizer reads every space-separated token of ``text`` as it stands.

    True when each character other than the spaces is a letter, digit, mark or private-use
    character (``unicode61`` with categories ``L* N* Co M*`` keeps it inside a token) and
    Unicode case folding changes nothing (``unicode61`` folds ``ς``, ``ſ``, ``µ`` and upper
    case). Checked against SQLite 3.40.1 over every code point: each character Python's
    Unicode tables put in those categories is a token character for ``unicode61``, and the
    lower-case ones it folds are the ones case folding changes. False for an empty ``text``
    (and conservatively for ``ß``, which case folding changes and ``unicode61`` keeps).
    """
    joined = text.replace(" ", "")
    if not joined or joined.casefold() != joined:
        return False
    return joined.isalnum() or all(unicodedata.category(c)[0] in "LNM"
                                   or unicodedata.category(c) == "Co" for c in joined)


def phrase_counts(bodies: Iterable[tuple[int, str]], phrases: Mapping[str, Sequence[str]]
                  ) -> tuple[dict[tuple[int, str], int], set[int]]:
    """(group, key) -> bodies of that group holding the key's phrase, counted in Python.

    A phrase is found where its tokens are consecutive tokens of the body, as FTS5's phrase
    match finds it when the body and the phrase are ``fts_plain``.

    Args:
        bodies: (group, index body) pairs, e.g. (document id, chunk body).
        phrases: key -> index tokens in order.

    Returns:
        The counts (pairs found in no body omitted) of the groups whose bodies are all
        ``fts_plain``, and the other groups (every group when a phrase is not plain), which
        only FTS5 can count.
    """
    needles = {key: f" {' '.join(tokens)} " for key, tokens in phrases.items()}
    rows = list(bodies)
    if not all(fts_plain(n) for n in needles.values()):
        return {}, {group for group, _ in rows}
    left = {group for group, body in rows if not fts_plain(body)}
    out: dict[tuple[int, str], int] = {}
    for group, body in rows:
        if group in left:
            continue
        padded = f" {body} "
        for key, needle in needles.items():
            if needle in padded:
                out[(group, key)] = out.get((group, key), 0) + 1
    return out, left


def phrase_expression(tokens: Sequence[str]) -> str:
    """An FTS5 MATCH phrase of index tokens in order (each token holds only word characters)."""
    return '"' + " ".join(tokens).replace('"', '""') + '"'


def cut_words(text: str) -> list[str]:
    """Jieba's word cut of CJK text (its precise mode), for judging a query's terms."""
    return list(_jieba().lcut(text))


def cut_for_search(text: str) -> list[str]:
    """Jieba's search-mode cut: the words inside a CJK word, and the word (dictionaries)."""
    return list(_jieba().cut_for_search(text))


def word_frequency(word: str) -> int:
    """How often jieba's dictionary counts ``word`` (its corpus frequency; 0 when unknown)."""
    return int(_jieba().dt.FREQ.get(word, 0) or 0)


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains at least one CJK character."""
    return _CJK_RUN.search(text) is not None


NO_SEARCHABLE_WORDS = "has no searchable words"  # "the query has no searchable words"


def has_search_text(text: str) -> bool:
    """Whether ``text`` holds anything to search for: a letter, digit or other symbol (emoji).

    Punctuation, spaces, control and format characters, and math, currency and modifier
    symbols alone (``...``, ``()``, ``:::``, ``*``) are nothing to search for: a query of
    them is a caller mistake (``NO_SEARCHABLE_WORDS``). One letter of any script (``中``)
    or an emoji is something.
    """
    return any(unicodedata.category(c)[0] in "LN" or unicodedata.category(c) == "So"
               for c in text)
