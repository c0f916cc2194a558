"""Text as the full-text index sees it: one tokenizer for index and query, and safe MATCH.

FTS5's ``unicode61`` tokenizer splits on non-letters only, so a Chinese sentence would become one
giant token, and the ``trigram`` tokenizer cannot match 2-character words. kb therefore tokenizes
in Python, identically at index and query time, and hands FTS5 space-separated tokens:

* Latin and other alphabetic words: NFKD diacritic folding, lower-casing, then the Snowball
  English stemmer (Porter2, https://snowballstem.org/algorithms/english/stemmer.html).
* Runs of CJK characters: overlapping character bigrams (``计算机`` -> ``计算 算机``, the approach
  of Lucene's CJKBigramFilter), so every 2-character word inside a sentence is findable, plus
  jieba's search-mode words of 3+ characters, which reward whole-word matches.

Because the tokens are ours, their document frequencies can be read back from ``fts5vocab``
(used by retrieval to put BM25 on an absolute per-query scale). The recipe is recorded in the
index as ``TOKENIZER_FINGERPRINT``; an index built with another recipe must be rebuilt.

User text never reaches MATCH raw: ``match_expression`` quotes each token, and tokens hold only
word characters, so quotes, ``*``, ``^``, ``:``, ``-``, AND/OR/NOT/NEAR and emoji are inert.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from functools import lru_cache
from typing import Any

TOKENIZER_FINGERPRINT = "kb-fts-v1:nfkd-fold+snowball-english|cjk-bigram+jieba3:unicode61"

# Han (incl. ext. A and compatibility), Hiragana, Katakana, Hangul syllables.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
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

    jieba.setLogLevel(logging.WARNING)
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


def cjk_tokens(run: str) -> list[str]:
    """Tokens for one run of CJK characters: bigrams plus jieba words of 3+ characters.

    Args:
        run: a string made only of CJK characters.

    Returns:
        Tokens in order; a 1-character run yields itself.
    """
    if len(run) == 1:
        return [run]
    tokens = [run[i : i + 2] for i in range(len(run) - 1)]
    if len(run) >= 3:
        tokens.extend(w for w in _jieba().cut_for_search(run) if len(w) >= 3)
    return tokens


def tokenize(text: str, *, drop_stopwords: bool = False) -> list[str]:
    """The index tokens of ``text`` in order (with repeats).

    Args:
        text: any text.
        drop_stopwords: drop English stopwords (query side).
    """
    out: list[str] = []
    for word in _WORD.findall(text):
        if _CJK_RUN.fullmatch(word):
            out.extend(cjk_tokens(word))
        elif not (drop_stopwords and word.lower() in STOPWORDS):
            out.append(normalise_word(word))
    return [t for t in out if t]


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


def match_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing quoted terms, or ``None`` when there are none."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def phrase_expression(tokens: list[str]) -> str:
    """An FTS5 MATCH phrase of index tokens in order (each token holds only word characters)."""
    return '"' + " ".join(tokens).replace('"', '""') + '"'


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains at least one CJK character."""
    return _CJK_RUN.search(text) is not None
