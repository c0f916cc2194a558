"""Calibrate an embedding model's vector score scale and relevance floor on a golden set.

For every judged query of a BEIR-format set (with ``distractors.tsv`` when present), kb computes
each chunk's *margin*: its cosine minus the query's baseline (``retrieve.recall.cosine_baseline``).

* positives: per answerable query, the best margin among the chunks of its relevant documents;
* negatives: per query, the best margin among chunks of documents that are not relevant
  (the strongest wrong candidate: a planted distractor, or anything, for unanswerable queries).

``span`` is the median positive margin (a typical relevant chunk gets vector s_norm 1), and the
floor is the threshold on ``margin / span`` maximising Youden's J = TPR - FPR (Youden 1950)
between positives and negatives, capped so that at least ``MIN_KEPT_RELEVANT`` of the positives
pass (the floor only judges candidates without keyword evidence, and cross-language or
paraphrased questions have nothing else, so it must not cost much recall). The result is stored
in the index for the embedder's fingerprint (``retrieve.calibration.save_calibration``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from eval.datasets import load_qrels, load_queries
from eval.retrieval import SOURCE_PREFIX
from kb.api import KnowledgeBase
from retrieve.calibration import Calibration, load_calibration
from retrieve.recall import cosine_baseline

MIN_KEPT_RELEVANT = 0.9  # the floor keeps at least 90% of relevant best chunks


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """The calibration found and the evidence behind it.

    Attributes:
        calibration: the numbers to store.
        positives: best relevant margins, one per answerable query.
        negatives: best non-relevant margins, one per query.
        tpr: share of positives at or above the floor.
        fpr: share of negatives at or above the floor.
    """

    calibration: Calibration
    positives: tuple[float, ...]
    negatives: tuple[float, ...]
    tpr: float
    fpr: float


def youden_threshold(positives: np.ndarray, negatives: np.ndarray) -> tuple[float, float, float]:
    """The threshold maximising TPR - FPR, with its TPR and FPR.

    Candidates are every observed value; ties prefer the lower threshold (keeps recall).

    Raises:
        ValueError: either sample is empty.
    """
    if positives.size == 0 or negatives.size == 0:
        raise ValueError("calibration needs both relevant and non-relevant evidence")
    best = (-2.0, 0.0, 0.0, 0.0)
    for t in np.unique(np.concatenate([positives, negatives])):
        tpr = float((positives >= t).mean())
        fpr = float((negatives >= t).mean())
        if tpr - fpr > best[0]:
            best = (tpr - fpr, float(t), tpr, fpr)
    return best[1], best[2], best[3]


def calibrate(index: KnowledgeBase, dataset: Path) -> CalibrationReport:
    """Measure margins on an index of ``dataset`` (see ``eval.retrieval.open_index``).

    Raises:
        ValueError: the index has no vectors or the set has no usable queries.
    """
    service, problem = index.embedding_service()
    if service is None:
        raise ValueError(f"cannot calibrate without an embedder: {problem}")
    fallback = load_calibration(index.store, service.fingerprint.key, service.embedder.model_id)
    vm = index.store.vector_matrix(service.fingerprint.key)
    if vm.matrix.shape[0] == 0:
        raise ValueError("the calibration index has no vectors")
    corpus_id = {d.id: d.source.removeprefix(SOURCE_PREFIX) for d in index.documents()}
    doc_of_row = np.array([corpus_id[int(d)] for d in vm.doc_ids])
    qrels = load_qrels(dataset)
    pos, neg = [], []
    for q in load_queries(dataset):
        scores = vm.matrix @ service.embed_query(q.text)
        margins = scores - cosine_baseline(scores, fallback.cos_unrelated)
        relevant = np.isin(doc_of_row, [d for d, g in qrels.get(q._id, {}).items() if g > 0])
        if relevant.any():
            pos.append(float(margins[relevant].max()))
        if (~relevant).any():
            neg.append(float(margins[~relevant].max()))
    positives, negatives = np.array(pos), np.array(neg)
    if positives.size == 0:
        raise ValueError(f"{dataset}: no query has a relevant document")
    span = max(float(np.median(positives)), 1e-3)
    floor, _, _ = youden_threshold(positives / span, negatives / span)
    floor = min(floor, float(np.quantile(positives / span, 1 - MIN_KEPT_RELEVANT)))
    tpr = float((positives / span >= floor).mean())
    fpr = float((negatives / span >= floor).mean())
    stamp = datetime.now(UTC).date().isoformat()
    calibration = Calibration(cos_unrelated=fallback.cos_unrelated, span=round(span, 4),
                              floor=round(min(max(floor, 0.0), 1.0), 4),
                              source=f"kb calibrate {stamp} on {dataset.name}")
    return CalibrationReport(calibration, tuple(pos), tuple(neg), tpr, fpr)
