"""The judge's fitted model: a logistic regression over named features, and its threshold.

``retrieve/judge_model.json`` holds one model per embedding model it was fitted with
(``bench/fit_judge.py``) and ``lexical``, fitted without the vector signals (their scale
differs per model) on BM25-only searches: the one used for any other embedder and without one.
``kb calibrate`` stores another threshold in an index (``kb.retrieve.calibration``).

A model is not used outside the range it was fitted on: each feature is first clipped to its
training range (``low``, ``high``: quantiles of the training rows, ``bench/fit_judge.py``), so
an index unlike the training ones cannot extrapolate a linear term into certainty (a six-note
collection puts the best cosine 0.2 above the candidates' median, seven standard deviations
past the training mean, and gave a passage without one focus term 98%). Clipping the inputs
to their fitted range is winsorising (Tukey, "The future of data analysis", Ann. Math.
Statist. 33, 1962, naming it after C. P. Winsor), the usual guard for a linear model used on
data unlike its training set.
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

    ``answer_p = 1 / (1 + exp(-(intercept + sum_i coef_i * (clip(x_i) - mean_i) / scale_i)))``,
    ``clip(x_i)`` being ``x_i`` held to ``[low_i, high_i]`` (no clipping without them).

    Attributes:
        features: feature names, in the order of the vectors.
        mean: per-feature mean on the training data.
        scale: per-feature standard deviation (> 0).
        coef: per-feature coefficient.
        intercept: the bias.
        threshold: ``answer_p`` from which a passage passes, in [0, 1].
        source: where the numbers come from.
        low: per-feature lowest value used (the training rows' low quantile), or ``None``.
        high: per-feature highest value used, or ``None``.
    """

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    source: str = "shipped"
    low: tuple[float, ...] | None = None
    high: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError("judge model: features, mean, scale and coef differ in length")
        if not all(math.isfinite(v) for v in (*self.mean, *self.scale, *self.coef,
                                               self.intercept, self.threshold)):
            raise ValueError("judge model: every number must be finite")
        if any(s <= 0 for s in self.scale):
            raise ValueError("judge model: every scale must be positive")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"judge model: threshold must be in [0, 1], got {self.threshold}")
        if (self.low is None) != (self.high is None):
            raise ValueError("judge model: low and high come together")
        if self.low is not None and self.high is not None:
            if not len(self.low) == len(self.high) == n:
                raise ValueError("judge model: low and high differ in length from features")
            if not all(math.isfinite(v) for v in (*self.low, *self.high)):
                raise ValueError("judge model: clip bounds must be finite")
            if any(lo > hi for lo, hi in zip(self.low, self.high, strict=True)):
                raise ValueError("judge model: a low bound above its high bound")

    def probability(self, values: Mapping[str, float]) -> float:
        """``answer_p`` of one feature mapping (missing features count as their mean)."""
        n = len(self.features)
        low = self.low or (-math.inf,) * n
        high = self.high or (math.inf,) * n
        z = self.intercept
        for name, m, s, c, lo, hi in zip(self.features, self.mean, self.scale, self.coef, low,
                                         high, strict=True):
            z += c * (min(hi, max(lo, values.get(name, m))) - m) / s
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
        ValueError: malformed JSON, a missing field, lengths that differ, a scale not above 0,
            a threshold outside [0, 1], a number that is not finite, or clip bounds given
            alone or crossed.
    """
    try:
        d = json.loads(raw)
        if not isinstance(d, dict):
            raise ValueError(f"judge model: a JSON object expected, got {type(d).__name__}")
        low, high = d.get("low"), d.get("high")
        return JudgeModel(tuple(str(f) for f in d["features"]),
                          tuple(float(v) for v in d["mean"]),
                          tuple(float(v) for v in d["scale"]),
                          tuple(float(v) for v in d["coef"]), float(d["intercept"]),
                          float(d["threshold"]),
                          str(d.get("source", "shipped")),
                          None if low is None else tuple(float(v) for v in low),
                          None if high is None else tuple(float(v) for v in high))
    except (KeyError, TypeError, json.JSONDecodeError) as exc:  # float("x"): a ValueError
        raise ValueError(f"judge model: missing or malformed field ({exc})") from exc


@lru_cache(maxsize=8)
def shipped_model(model_id: str | None) -> JudgeModel:
    """The shipped model for an embedding model's id (``None``: BM25 only), else ``lexical``."""
    raw = resources.files("kb.retrieve").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    variants = json.loads(raw)["models"]
    chosen = variants.get(model_id or LEXICAL, variants[LEXICAL])
    return model_from_json(json.dumps(chosen))
