"""The judge's fitted model: a logistic regression over named features, and its threshold.

``retrieve/judge_model.json`` holds one model per embedding model it was fitted with
(``bench/fit_judge.py``) and ``lexical``, fitted without the vector signals (their scale
differs per model) on BM25-only searches: the one used for any other embedder and without one.
``kb calibrate`` stores another threshold in an index (``kb.retrieve.calibration``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources

MODEL_FILE = "judge_model.json"
LEXICAL = "lexical"  # the model without vector signals (BM25 only, other embedders)


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

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError("judge model: features, mean, scale and coef differ in length")
        if any(s <= 0 for s in self.scale):
            raise ValueError("judge model: every scale must be positive")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"judge model: threshold must be in [0, 1], got {self.threshold}")

    def probability(self, values: Mapping[str, float]) -> float:
        """``answer_p`` of one feature mapping (missing features count as their mean)."""
        z = self.intercept
        for name, m, s, c in zip(self.features, self.mean, self.scale, self.coef, strict=True):
            z += c * (values.get(name, m) - m) / s
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def with_threshold(self, threshold: float, source: str) -> JudgeModel:
        """The same model with another threshold (``kb calibrate``).

        Raises:
            ValueError: ``threshold`` is outside [0, 1].
        """
        d = asdict(self)
        d.update(threshold=threshold, source=source)
        return JudgeModel(**d)


def model_to_json(model: JudgeModel) -> str:
    """The JSON form of a model (``model_from_json`` reads it back)."""
    return json.dumps(asdict(model))


def model_from_json(raw: str) -> JudgeModel:
    """A ``JudgeModel`` from its JSON form.

    Raises:
        ValueError: malformed JSON, a missing field, lengths that differ, a scale not above 0
            or a threshold outside [0, 1].
    """
    try:
        d = json.loads(raw)
        return JudgeModel(tuple(d["features"]), tuple(d["mean"]), tuple(d["scale"]),
                          tuple(d["coef"]), float(d["intercept"]), float(d["threshold"]),
                          str(d.get("source", "shipped")))
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"judge model: missing or malformed field ({exc})") from exc


@lru_cache(maxsize=8)
def shipped_model(model_id: str | None) -> JudgeModel:
    """The shipped model for an embedding model's id (``None``: BM25 only), else ``lexical``."""
    raw = resources.files("kb.retrieve").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    variants = json.loads(raw)["models"]
    chosen = variants.get(model_id or LEXICAL, variants[LEXICAL])
    return model_from_json(json.dumps(chosen))
