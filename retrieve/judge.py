"""Stage 5, judge: the probability that a candidate passage holds the answer (``answer_p``).

Work in progress: ``features`` computes every signal measured so far for one query and its
candidates; ``eval.answerability`` measures each one's AUC.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from retrieve.judge_signals import (
    PassageTerms,
    Term,
    answer_type,
    best_sentence,
    content_terms,
    coverage,
    has_filler,
    idf_of,
    novel_filler,
    passage_terms,
    script_of,
    sentences,
    topic_terms,
)


@dataclass(frozen=True, slots=True)
class Passage:
    """One candidate as the judge sees it (plain data gathered by the orchestrator).

    Attributes:
        chunk_id: the chunk.
        doc_id: its document.
        text: the raw chunk text (what is cited).
        context: the chunk's context prefix (document title and heading path).
        cosine: best raw cosine to the query over the vector lists, or ``None``.
        vector: vector s_norm in [0, 1] (cosine above the query's baseline).
        keyword: keyword s_norm in [0, 1] (BM25 share of the query's idf).
        fused: fused score before time decay, >= 0.
        embedding: the chunk's stored vector (L2-normalised), or ``None``.
    """

    chunk_id: int
    doc_id: int
    text: str
    context: str
    cosine: float | None
    vector: float
    keyword: float
    fused: float
    embedding: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What the judge reads about the index.

    Attributes:
        n_chunks: chunks in the index.
        df: index token -> number of chunks holding it (for the query's tokens).
        doc_chunks: document id -> its number of chunks.
        doc_term_chunks: (document id, term text) -> chunks of that document holding the term.
    """

    n_chunks: int
    df: Mapping[str, int]
    doc_chunks: Mapping[int, int]
    doc_term_chunks: Mapping[tuple[int, str], int]


TOPIC_SHARE = 0.3  # a term in this share of its document's chunks (and >= 2) is a topic term


def features(query: str, passages: Sequence[Passage], stats: IndexStats,
             query_vector: np.ndarray | None = None) -> list[dict[str, float]]:
    """Every measured signal of each passage for ``query`` (experimental superset)."""
    terms = content_terms(query)
    weights = [idf_of(t, stats.df, max(stats.n_chunks, 1)) for t in terms]
    max_idf = float(np.log(max(stats.n_chunks, 1) + 0.5)) or 1.0
    wanted = answer_type(query)
    q_script = script_of(query)
    best_cos = max((p.cosine for p in passages if p.cosine is not None), default=0.0)
    best_fused = max((p.fused for p in passages), default=0.0) or 1.0
    cosines = [p.cosine for p in passages if p.cosine is not None]
    med_cos = float(np.median(cosines)) if cosines else 0.0
    out: list[dict[str, float]] = []
    for rank, p in enumerate(passages):
        holder = passage_terms(p.text)
        full = passage_terms(p.context + "\n" + p.text)
        topic = _topics(terms, p, stats)
        focus = [(t, w) for t, w in zip(terms, weights, strict=True) if t.text not in topic]
        f_terms = [t for t, _ in focus]
        f_weights = [w for _, w in focus]
        missing = [w for t, w in focus if not holder.has(t)]
        sent, sent_cov = best_sentence(terms, weights, p.text)
        _, sent_focus = best_sentence(f_terms, f_weights, p.text) if f_terms else ("", 1.0)
        sents = sentences(p.text) or [p.text]
        if f_terms:
            scores = [coverage(f_terms, f_weights, passage_terms(x)) for x in sents]
        else:
            scores = [coverage(terms, weights, passage_terms(x)) for x in sents]
        i_best = int(np.argmax(scores))
        window = " ".join(sents[max(0, i_best - 1): i_best + 2])
        novel = novel_filler(window, wanted, query) if wanted != "other" else False
        novel_sent = novel_filler(sents[i_best], wanted, query) if wanted != "other" else False
        p_script = script_of(p.text)
        cross = float(q_script != "none" and p_script != "none" and q_script != p_script)
        out.append({
            "cov": coverage(terms, weights, full),
            "cov_text": coverage(terms, weights, holder),
            "focus_cov": coverage(f_terms, f_weights, holder),
            "has_focus": float(bool(f_terms)),
            "miss_max": max(missing, default=0.0) / max_idf,
            "miss_sum": sum(missing) / max_idf,
            "sent_cov": sent_cov,
            "sent_focus": sent_focus,
            "vec": p.vector,
            "kw": p.keyword,
            "cos": p.cosine if p.cosine is not None else 0.0,
            "cos_gap": best_cos - (p.cosine if p.cosine is not None else best_cos - 0.1),
            "cos_rel": (p.cosine - med_cos) if p.cosine is not None else 0.0,
            "fused_rel": p.fused / best_fused,
            "rank": float(rank),
            "atype_wanted": float(wanted != "other"),
            "atype_found": float(has_filler(p.text, wanted)),
            "atype_sent": float(has_filler(sent, wanted)),
            "cross": cross,
            "novel_win": float(novel),
            "novel_sent": float(novel_sent),
            "typed_nofill": float(wanted != "other" and not novel),
            "novel_chunk": float(wanted != "other" and novel_filler(p.text, wanted, query)),
            "short": float(len(p.text) < 80),
            "len": min(len(p.text), 1000) / 1000,
            "n_terms": float(len(terms)),
            "no_terms": float(not terms),
            "idf_total": sum(weights) / max_idf,
        })
    return out


def _topics(terms: Sequence[Term], p: Passage, stats: IndexStats) -> set[str]:
    """Terms the passage's document is about: in its title or headings, or frequent in it."""
    topic = topic_terms(terms, p.context)
    n = stats.doc_chunks.get(p.doc_id, 0)
    for t in terms:
        k = stats.doc_term_chunks.get((p.doc_id, t.text), 0)
        if n >= 3 and k >= 2 and k >= TOPIC_SHARE * n:
            topic.add(t.text)
    return topic


__all__ = ["IndexStats", "Passage", "PassageTerms", "features"]
