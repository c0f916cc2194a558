"""Calibrate an embedding model's vector score scale and relevance floor on a golden set.

For every judged query of a BEIR-format set (with ``distractors.tsv`` when present), kb computes
each chunk's *margin*: its cosine minus the query's baseline for chunks of its kind
(``kb.retrieve.recall.group_baselines``, as search computes it).

* positives: per answerable query, the best margin among the chunks of its relevant documents;
* negatives: per query, the best margin among chunks of documents that are not relevant
  (the strongest wrong candidate: a planted distractor, or anything, for unanswerable queries).

``span`` is the median positive margin (a typical relevant chunk gets vector s_norm 1), and the
floor is the threshold on ``margin / span`` maximising Youden's J = TPR - FPR (Youden 1950)
between positives and negatives, capped so that at least ``MIN_KEPT_RELEVANT`` of the positives
pass (the floor only judges candidates without keyword evidence, and cross-language or
paraphrased questions have nothing else, so it must not cost much recall). The result is stored
in the index for the embedder's fingerprint (``kb.retrieve.calibration.save_calibration``).

The judge's threshold (``calibrate_judge``): every query runs through the full search on the
set's index and keeps its best ``answer_p`` (0 when nothing passed the evidence gate). With
unanswerable queries in the set (no qrels row), the threshold maximises the refusal of the
unanswerable ones minus the false refusal of the answerable ones, with false refusal at most
``MAX_FALSE_REFUSAL``; without them, it refuses at most ``GATED_FALSE_REFUSAL`` of the
answerable queries that passed the gate (the rule the shipped threshold was fitted with,
``bench/fit_judge.py``). It is stored per fingerprint (``kb.retrieve.calibration``). Its rates
on the set flatter it (the threshold was fitted on those questions), so ``held_out_rates``
also judges each question by a threshold fitted without it (k-fold cross-validation).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from kb.api import KnowledgeBase
from kb.config import PipelineSettings, SearchOptions
from kb.eval.datasets import load_qrels, load_queries
from kb.eval.retrieval import FIXED_TIME, SOURCE_PREFIX, engines_for
from kb.retrieve.calibration import Calibration, load_calibration
from kb.retrieve.pipeline import search
from kb.retrieve.recall import group_baselines

MIN_KEPT_RELEVANT = 0.9  # the floor keeps at least 90% of relevant best chunks
MAX_FALSE_REFUSAL = 0.10  # a calibrated judge refuses at most 1 in 10 answerable questions
GATED_FALSE_REFUSAL = 0.05  # without unanswerable questions: bench/fit_judge.py's rule
# answerable questions a stored calibration needs: with fewer the threshold fits the set, not
# the documents (a new-user trial's 3 questions stored 0.97, which refused every answer after)
MIN_ANSWERABLE = 20


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
    """Measure margins on an index of ``dataset`` (see ``kb.eval.retrieval.open_index``).

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
    for q in load_queries(dataset, searchable=True):
        scores = vm.matrix @ service.embed_query(q.text)
        margins = scores - group_baselines(scores, vm.groups, fallback.cos_unrelated)
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
    calibration = Calibration(cos_unrelated=fallback.cos_unrelated, span=round(span, 4),
                              floor=round(min(max(floor, 0.0), 1.0), 4),
                              source=_source(dataset))
    return CalibrationReport(calibration, tuple(pos), tuple(neg), tpr, fpr)


@dataclass(frozen=True, slots=True)
class JudgeCalibration:
    """The judge threshold fitted on a set, and what it does there.

    Attributes:
        threshold: ``answer_p`` from which a passage passes, in [0, 1].
        refusal_rate: unanswerable queries refused at it (``None`` without any).
        false_refusal_rate: answerable queries refused at it.
        answerable: answerable queries measured.
        unanswerable: unanswerable queries measured.
        source: where the threshold comes from (``kb calibrate <date> on <set>``).
        best_answerable: each answerable query's best ``answer_p`` (0: nothing passed the
            gate), for ``rates_at``.
        best_unanswerable: the same for the unanswerable queries.
    """

    threshold: float
    refusal_rate: float | None
    false_refusal_rate: float
    answerable: int
    unanswerable: int
    source: str
    best_answerable: tuple[float, ...] = ()
    best_unanswerable: tuple[float, ...] = ()

    def rates_at(self, threshold: float) -> tuple[float | None, float]:
        """(refusal, false refusal) of the measured queries at ``threshold``.

        At the shipped threshold: what the calibration changes. Refusal is ``None`` without
        unanswerable queries.
        """
        a, u = np.array(self.best_answerable), np.array(self.best_unanswerable)
        return (float(refused(u, threshold).mean()) if u.size else None,
                float(refused(a, threshold).mean()) if a.size else 0.0)

    def held_out(self) -> tuple[float | None, float]:
        """(refusal, false refusal) with each query judged without it (``held_out_rates``)."""
        return held_out_rates(np.array(self.best_answerable), np.array(self.best_unanswerable))


def no_better(fitted: tuple[float | None, float], shipped: tuple[float | None, float]) -> bool:
    """Whether a fitted threshold gains nothing over the shipped one on the same questions.

    Args:
        fitted: its (refusal, false refusal) held out (``JudgeCalibration.held_out``).
        shipped: the shipped threshold's (``JudgeCalibration.rates_at``); the shipped model
            was fitted on none of the user's questions, so both are figures on new questions.

    Returns:
        ``True`` when the fitted one refuses no more unanswerable questions, no fewer
        answerable ones, and differs (a trial's: 0.22 against 0.33 refused, both at 0.15
        false refusal); without unanswerable questions, when it refuses more answerable ones.
    """
    (refusal, false_refusal), (refusal_shipped, false_refusal_shipped) = fitted, shipped
    if refusal is None or refusal_shipped is None:
        return false_refusal > false_refusal_shipped
    return (refusal <= refusal_shipped and false_refusal >= false_refusal_shipped
            and (refusal, false_refusal) != (refusal_shipped, false_refusal_shipped))


def refused(best: np.ndarray, threshold: float) -> np.ndarray:
    """Which questions a threshold refuses: a best ``answer_p`` below it, or 0 (no gate)."""
    return (best < threshold) | (best <= 0)


def judge_threshold(answerable: np.ndarray, unanswerable: np.ndarray, *,
                    max_false_refusal: float = MAX_FALSE_REFUSAL,
                    gated_quantile: float = GATED_FALSE_REFUSAL) -> float:
    """The threshold on a question's best ``answer_p`` (see the module docstring).

    A question is refused when its best ``answer_p`` is below the threshold or 0 (nothing
    passed the evidence gate). Candidates are the observed values; ties prefer the lower one.

    Args:
        answerable: best ``answer_p`` of each answerable question, in [0, 1].
        unanswerable: the same for the unanswerable ones (may be empty).
        max_false_refusal: the share of answerable questions the threshold may refuse.
        gated_quantile: without unanswerable questions, the share of the answerable ones
            that passed the gate the threshold refuses.

    Raises:
        ValueError: no answerable question passed the evidence gate.
    """
    gated = answerable[answerable > 0]
    if gated.size == 0:
        raise ValueError("no answerable question passed the judge's evidence gate: nothing "
                         "to calibrate on (are the questions answered by the set's corpus?)")
    if unanswerable.size == 0:
        return float(np.quantile(gated, gated_quantile))
    best = (-2.0, float(gated.min()))
    for t in np.unique(np.concatenate([gated, unanswerable[unanswerable > 0]])):
        false_refusal = float(refused(answerable, t).mean())
        if false_refusal > max_false_refusal + 1e-12:
            continue
        refusal = float(refused(unanswerable, t).mean())
        if refusal - false_refusal > best[0]:
            best = (refusal - false_refusal, float(t))
    return best[1]


HELD_OUT_FOLDS = 10


def held_out_rates(answerable: np.ndarray, unanswerable: np.ndarray,
                   folds: int = HELD_OUT_FOLDS) -> tuple[float | None, float]:
    """(refusal, false refusal) with each question judged by a threshold fitted without it.

    The questions (answerable and unanswerable, in the order given) are dealt into ``folds``
    folds round-robin; each fold's questions are judged by ``judge_threshold`` fitted on the
    others (k-fold cross-validation; Stone, J. R. Stat. Soc. B 36, 1974): what the threshold
    does on new questions, not on those it was fitted on. A fold whose rest has no answerable
    question past the gate is judged by the threshold fitted on all.

    Returns:
        Refusal of the unanswerable questions (``None`` without any) and false refusal of the
        answerable ones, each in [0, 1].
    """
    best = np.concatenate([answerable, unanswerable])
    label = np.concatenate([np.ones(answerable.size, bool), np.zeros(unanswerable.size, bool)])
    fold = np.arange(best.size) % max(1, min(folds, best.size))
    everyone = judge_threshold(answerable, unanswerable)
    held = np.zeros(best.size, bool)  # refused by a threshold fitted without it
    for k in np.unique(fold):
        rest = fold != k
        try:
            t = judge_threshold(best[rest & label], best[rest & ~label])
        except ValueError:  # no answerable question of the rest passed the gate
            t = everyone
        held[~rest] = refused(best[~rest], t)
    return (float(held[~label].mean()) if unanswerable.size else None,
            float(held[label].mean()))


def check_set_size(dataset: Path, minimum: int = MIN_ANSWERABLE) -> None:
    """Refuse a set with fewer than ``minimum`` answerable questions (a qrels score > 0).

    Raises:
        ValueError: too few (the message names the count, the minimum and ``--dry-run``).
    """
    qrels = load_qrels(dataset)
    ids = {q._id for q in load_queries(dataset)}
    answerable = sum(1 for q, judged in qrels.items() if q in ids
                     and any(g > 0 for g in judged.values()))
    if answerable < minimum:
        raise ValueError(f"{dataset}: {answerable} answerable question(s); a calibration is "
                         f"stored only from {minimum} or more (with fewer the threshold fits "
                         "these questions, not your documents): add questions, or run with "
                         "--dry-run to see the figures without storing them")


def calibrate_judge(index: KnowledgeBase, dataset: Path) -> JudgeCalibration:
    """Fit the judge threshold on an index of ``dataset`` (see the module docstring).

    Raises:
        ValueError: no query has a relevant document (a qrels score > 0), or no answerable
            question passed the evidence gate.
    """
    qrels = load_qrels(dataset)
    engines = engines_for(index, PipelineSettings())
    answerable: list[float] = []
    unanswerable: list[float] = []
    for q in load_queries(dataset, searchable=True):
        result = search(index.store, q.text, SearchOptions(decay=False), engines=engines,
                        now=FIXED_TIME)
        best = result.diagnostics.best_answer_p or 0.0
        relevant = any(g > 0 for g in qrels.get(q._id, {}).values())
        (answerable if relevant else unanswerable).append(best)
    if not answerable:
        raise ValueError(f"{dataset}: no query has a relevant document")
    t = judge_threshold(np.array(answerable), np.array(unanswerable))
    measured = JudgeCalibration(round(t, 6), None, 0.0, len(answerable), len(unanswerable),
                                _source(dataset), tuple(answerable), tuple(unanswerable))
    refusal, false_refusal = measured.rates_at(t)
    return dataclasses.replace(measured, refusal_rate=refusal, false_refusal_rate=false_refusal)


def _source(dataset: Path) -> str:
    """A stored calibration's source: ``kb calibrate <UTC date> on <set folder's name>``."""
    return f"kb calibrate {datetime.now(UTC).date().isoformat()} on {dataset.name}"
