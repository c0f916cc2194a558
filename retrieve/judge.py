"""Stage 5, judge: the probability that a candidate passage holds the answer (``answer_p``).

Offline and without an LLM, from evidence a cosine alone cannot see (DESIGN 4.5):

1. **Focus coverage** (``retrieve.judge_signals``): the query's content terms (stems, jieba
   words; with their CC-CEDICT translations, ``retrieve.lexicon``) weighted by idf, split into
   *topic terms* (in the passage's title or heading path, or in at least ``TOPIC_SHARE`` of its
   document's chunks) and *focus terms* (the rest); the passage's coverage of both, the idf
   mass of the focus terms it misses, and the share of the query's mass no chunk holds at all.
2. **Sentence evidence**: the passage's best sentence by focus coverage.
3. **Answer type**: the expected answer type (who / when / how many / where / which name ...)
   and whether the best sentence or its neighbours hold a filler of that type the query does
   not already contain.
4. **Vector and keyword evidence**: vector s_norm (per script and length, ``retrieve.recall``),
   the cosine above the median of the candidates judged, BM25 s_norm, the fused score relative
   to the best, the rank; whether the query and passage are in different scripts.

First the **evidence gate** (``Signals.gate``): a passage holds evidence only when its
*uncommon* matched terms (in at most ``COMMON_SHARE`` of the chunks, or at most
``COMMON_MIN_CHUNKS`` of them) carry at least
``MIN_EVIDENCE`` of the query's idf mass, and it matches two uncommon terms (or the only one a
one-term query has), or one and a term its document is about. Stop words are never terms, so a
query of stop words, punctuation or nonsense, or one sharing a single common word with a
passage, finds no evidence anywhere: ``answer_p`` is 0.

Then a logistic regression (``JudgeModel``, coefficients fitted offline by ``bench/fit_judge.py``
on the ``train`` split of ``golden/answerability``, shipped in ``judge_model.json``) turns the
signals into ``answer_p`` in [0, 1], higher is better. A passage passes when ``answer_p`` is at
least the model's calibrated threshold; the search is flagged ``insufficient_evidence`` when
none passes. Only numpy is needed at query time. Each signal's AUC alone, the model's and the
measured refusal rates are in ``bench/README.md``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np

from retrieve.judge_signals import (
    AnswerType,
    PassageTerms,
    Term,
    answer_type,
    coverage,
    idf_of,
    novel_filler,
    passage_terms,
    script_of,
    sentences,
    term_df,
    topic_terms,
)

JUDGE_TOP_N = 10  # candidates judged per query (the rest keep their fused order, unjudged)
TOPIC_SHARE = 0.3  # a term in this share of its document's chunks (and >= 2 of them) is topic
# The evidence gate (module docstring): the share of the query's idf mass a passage must hold
# in uncommon terms; chosen on the train split (bench/fit_judge.py prints the trade-off).
MIN_EVIDENCE = 0.2
COMMON_SHARE = 0.1  # a term in more than this share of the chunks is common: no evidence alone
COMMON_MIN_CHUNKS = 10  # ... and in more than this many (in a small index nothing is common)
# A passing passage is handed out only when its answer_p is at least this share of the best
# one's: on the train split, 0.5 raised the share of handed-out passages holding the answer
# from 0.41 to 0.58 and lost 1 in 100 answers (bench/fit_judge.py).
HAND_OUT_SHARE = 0.5
MODEL_FILE = "judge_model.json"

FEATURES: tuple[str, ...] = (
    "evidence", "coverage", "focus_coverage", "focus_missing", "absent", "sentence_focus",
    "typed", "type_found", "vector", "cosine_rel", "keyword", "fused_rel", "rank",
    "cross_language",
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
        df: index token -> chunks holding it (for the query terms' tokens and translations).
        doc_chunks: document id -> its number of chunks (for the documents judged).
        doc_term_chunks: (document id, term text) -> chunks of that document holding the term.
    """

    n_chunks: int
    df: Mapping[str, int]
    doc_chunks: Mapping[int, int]
    doc_term_chunks: Mapping[tuple[int, str], int]


@dataclass(frozen=True, slots=True)
class Signals:
    """Why a passage got its ``answer_p`` (diagnostics; see module docstring).

    Attributes:
        focus_found: focus terms the passage holds (as the query wrote them).
        focus_missing: focus terms it lacks.
        topic: topic terms (the passage's document is about them).
        best_sentence: the sentence covering the most focus weight.
        answer_type: the type the question asks for (``other``: none checkable).
        type_found: a filler of that type near the best sentence, if any.
        gate: the passage passed the evidence gate (see module docstring).
        features: feature name -> value, as the model saw them.
    """

    focus_found: tuple[str, ...]
    focus_missing: tuple[str, ...]
    topic: tuple[str, ...]
    best_sentence: str
    answer_type: AnswerType
    type_found: str | None
    gate: bool
    features: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's word on one passage.

    Attributes:
        chunk_id: the chunk.
        answer_p: probability in [0, 1] that it holds the answer (higher is better).
        passed: ``answer_p`` reached the threshold.
        signals: the evidence behind it.
    """

    chunk_id: int
    answer_p: float
    passed: bool
    signals: Signals


@dataclass(frozen=True, slots=True)
class JudgeModel:
    """A fitted logistic regression over ``features`` (standardised), and its threshold.

    ``answer_p = 1 / (1 + exp(-(intercept + sum_i coef_i * (x_i - mean_i) / scale_i)))``.

    Attributes:
        features: feature names, in the order of the vectors.
        mean: per-feature mean on the training data.
        scale: per-feature standard deviation (> 0).
        coef: per-feature coefficient.
        intercept: the bias.
        threshold: ``answer_p`` from which a passage passes, in [0, 1].
        source: where the numbers come from.
    """

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    source: str = "shipped"

    def probability(self, values: Mapping[str, float]) -> float:
        """``answer_p`` of one feature mapping (missing features count as their mean)."""
        z = self.intercept
        for name, m, s, c in zip(self.features, self.mean, self.scale, self.coef, strict=True):
            z += c * (values.get(name, m) - m) / s
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def with_threshold(self, threshold: float, source: str) -> JudgeModel:
        """The same model with another threshold (``kb calibrate``)."""
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        d = asdict(self)
        d.update(threshold=threshold, source=source)
        return JudgeModel(**d)


def model_to_json(model: JudgeModel) -> str:
    """The JSON form of a model (``model_from_json`` reads it back)."""
    return json.dumps(asdict(model))


def model_from_json(raw: str) -> JudgeModel:
    """A ``JudgeModel`` from its JSON form (``judge_model.json``).

    Raises:
        ValueError: the JSON lacks a field or its lengths disagree.
    """
    d = json.loads(raw)
    try:
        model = JudgeModel(tuple(d["features"]), tuple(d["mean"]), tuple(d["scale"]),
                           tuple(d["coef"]), float(d["intercept"]), float(d["threshold"]),
                           str(d.get("source", "shipped")))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"judge model: missing or malformed field ({exc})") from exc
    n = len(model.features)
    if not (len(model.mean) == len(model.scale) == len(model.coef) == n):
        raise ValueError("judge model: features, mean, scale and coef differ in length")
    return model


LEXICAL = "lexical"  # the shipped model without vector signals (BM25 only, other embedders)


@lru_cache(maxsize=8)
def shipped_model(model_id: str | None) -> JudgeModel:
    """The model shipped with kb (``retrieve/judge_model.json``) for an embedding model.

    The file holds one model per embedding model it was fitted with, and ``lexical``, fitted
    without the vector signals (their scale differs per model): the one used for any other
    embedder and for BM25-only searches (``model_id`` ``None``).
    """
    raw = resources.files("retrieve").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    variants = json.loads(raw)["models"]
    chosen = variants.get(model_id or LEXICAL, variants[LEXICAL])
    return model_from_json(json.dumps(chosen))


def judge(query: str, terms: Sequence[Term], passages: Sequence[Passage], stats: IndexStats,
          model: JudgeModel) -> list[Verdict]:
    """Judge each passage: ``answer_p``, pass or not, and the signals behind it.

    Args:
        query: the user's question.
        terms: its content terms (``retrieve.judge_signals.content_terms``).
        passages: the candidates to judge, best first by fused score.
        stats: index statistics for the terms and the passages' documents.
        model: the fitted model and threshold.

    Returns:
        One verdict per passage, in the order given; ``answer_p`` is 0 for a passage that
        fails the evidence gate.
    """
    out = []
    for p, s in zip(passages, passage_signals(query, terms, passages, stats), strict=True):
        prob = model.probability(s.features) if s.gate else 0.0
        out.append(Verdict(p.chunk_id, prob, s.gate and prob >= model.threshold, s))
    return out


def handed_out(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The verdicts whose passages are handed out, in the order given.

    A passage is handed out when it passed and its ``answer_p`` is at least ``HAND_OUT_SHARE``
    of the best passing one's.
    """
    best = max((v.answer_p for v in verdicts if v.passed), default=0.0)
    return [v for v in verdicts if v.passed and v.answer_p >= HAND_OUT_SHARE * best]


def passage_signals(query: str, terms: Sequence[Term], passages: Sequence[Passage],
                    stats: IndexStats) -> list[Signals]:
    """The signals of each passage (see module docstring), features named as in ``FEATURES``."""
    n = max(stats.n_chunks, 1)
    weights = [idf_of(t, stats.df, n) for t in terms]
    max_idf = math.log(n + 0.5)
    total = sum(weights)
    absent = (sum(w for t, w in zip(terms, weights, strict=True) if term_df(t, stats.df) == 0)
              / total) if total else 0.0
    wanted = answer_type(query)
    q_script = script_of(query)
    cosines = [p.cosine for p in passages if p.cosine is not None]
    median_cos = float(np.median(cosines)) if cosines else 0.0
    best_fused = max(p.fused for p in passages) or 1.0
    common = [term_df(t, stats.df) > max(COMMON_SHARE * n, COMMON_MIN_CHUNKS) for t in terms]
    uncommon = [t for t, c in zip(terms, common, strict=True) if not c]
    out = []
    for rank, p in enumerate(passages):
        holder = passage_terms(p.text)
        topic = _topics(terms, p, stats)
        focus = [(t, w) for t, w in zip(terms, weights, strict=True) if t.text not in topic]
        f_terms, f_weights = [t for t, _ in focus], [w for _, w in focus]
        found = [t for t in f_terms if holder.has(t)]
        missing = [(t, w) for t, w in focus if not holder.has(t)]
        full = passage_terms(p.context + "\n" + p.text)
        matched = sum(1 for t in uncommon if full.has(t))
        ev = evidence(terms, weights, common, full)
        gate = ev >= MIN_EVIDENCE and (matched >= min(2, len(uncommon)) or any(
            full.has(t) for t in terms if t.text in topic))
        sents = sentences(p.text) or [p.text]
        best, scores, filler = 0, [0.0], None
        if gate:  # sentence evidence only where the model will score the passage
            basis = (f_terms, f_weights) if f_terms else (list(terms), weights)
            scores = [coverage(basis[0], basis[1], passage_terms(x)) for x in sents]
            best = int(np.argmax(scores))
            window = " ".join(sents[max(0, best - 1): best + 2])
            filler = novel_filler(window, wanted, query) if wanted != "other" else None
        p_script = script_of(p.text)
        features = {
            "coverage": coverage(terms, weights, full),
            "focus_coverage": coverage(f_terms, f_weights, holder),
            "focus_missing": sum(w for _, w in missing) / max_idf,
            "absent": absent,
            "sentence_focus": scores[best],
            "typed": float(wanted != "other"),
            "type_found": float(filler is not None),
            "vector": p.vector,
            "cosine_rel": (p.cosine - median_cos) if p.cosine is not None else 0.0,
            "keyword": p.keyword,
            "fused_rel": p.fused / best_fused,
            "rank": rank / JUDGE_TOP_N,
            "cross_language": float("none" not in (q_script, p_script)
                                    and q_script != p_script),
            "evidence": ev,
        }
        out.append(Signals(
            focus_found=tuple(t.surface or t.text for t in found),
            focus_missing=tuple(t.surface or t.text for t, _ in missing),
            topic=tuple(sorted(topic)), best_sentence=sents[best], answer_type=wanted,
            type_found=filler, gate=gate, features=features))
    return out


def evidence(terms: Sequence[Term], weights: Sequence[float], common: Sequence[bool],
             holder: PassageTerms) -> float:
    """The share of the query's idf mass a passage holds in *uncommon* terms, in [0, 1].

    0 for a query without content terms (nonsense, punctuation, stop words), and for one whose
    only overlap with the passage is common words (in more than ``COMMON_SHARE`` of the chunks).
    """
    total = sum(weights)
    if total <= 0:
        return 0.0
    return sum(w for t, w, c in zip(terms, weights, common, strict=True)
               if not c and holder.has(t)) / total


def _topics(terms: Sequence[Term], p: Passage, stats: IndexStats) -> set[str]:
    """Terms the passage's document is about: in its title or headings, or frequent in it."""
    topic = topic_terms(terms, p.context)
    n = stats.doc_chunks.get(p.doc_id, 0)
    for t in terms:
        k = stats.doc_term_chunks.get((p.doc_id, t.text), 0)
        if n >= 3 and k >= 2 and k >= TOPIC_SHARE * n:
            topic.add(t.text)
    return topic
