"""The stage check (DESIGN 7.4): each optional stage switched on and off, as settings variants.

A *variant* is the configured ``PipelineSettings`` with one stage toggled
(``dataclasses.replace``): the relevance floor, the relative floor, the rerank stage, score
weighting in fusion, and the recall lists (hybrid against BM25 only and vectors only). Each
variant is evaluated like the configured settings and compared metric by metric, so a stage
that lowers the gates on the user's own golden set can be switched off with the evidence.

Stages that cannot be measured say why instead of reporting a zero delta: query expansion and
HyDE need an LLM; time decay needs documents with different ``created_at`` (golden indexes
give every document the same date, so decay scales every score by the same factor and cannot
change an order); the vector variants need an embedder.

This module also parses ``key=value`` setting overrides (``kb eval --stage-setting``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kb.config import PipelineSettings, RecallMode, RerankMode

Verdict = Literal["better", "worse", "mixed", "same"]

# The metrics a verdict weighs, with their direction (+1: higher is better, -1: lower is better).
# Latency is reported but not weighed: it varies with the machine, not the stage's quality.
VERDICT_METRICS: dict[str, int] = {
    "ndcg@10": 1,
    "recall@10": 1,
    "recall@100": 1,
    "mrr": 1,
    "reference_precision@3": 1,
    "distractor_pass_through": -1,
    "distractor_evidence_rate": -1,
    "refusal_rate": 1,
}
DELTA_DECIMALS = 4  # deltas are rounded to this before a verdict (metrics print 4 decimals)


@dataclass(frozen=True, slots=True)
class Variant:
    """One stage toggled away from the configured settings.

    Attributes:
        stage: the stage, e.g. ``floor``, ``rerank``, ``recall``.
        change: what the variant does, e.g. ``off``, ``bm25 only``.
        settings: the full settings of the variant.
        needs_vectors: the variant means nothing without an embedder.
    """

    stage: str
    change: str
    settings: PipelineSettings
    needs_vectors: bool = False


@dataclass(frozen=True, slots=True)
class SkippedStage:
    """A stage the check could not measure, and why.

    Attributes:
        stage: the stage name.
        reason: one sentence a user can act on.
    """

    stage: str
    reason: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """A variant's metrics against the configured settings' metrics.

    Attributes:
        variant: the variant measured.
        metrics: its metrics (same keys as the baseline's).
        deltas: variant minus baseline, per metric present in both, rounded.
        verdict: over ``VERDICT_METRICS``: ``better`` (some improve, none worsen), ``worse``,
            ``mixed`` or ``same``.
    """

    variant: Variant
    metrics: dict[str, float]
    deltas: dict[str, float]
    verdict: Verdict


def stage_variants(base: PipelineSettings, *, llm_configured: bool = False,
                   reranker_configured: bool = False) -> list[Variant]:
    """The settings variants of the stage check, each toggling one stage of ``base``.

    Args:
        base: the configured settings (the reference of every delta).
        llm_configured: a chat model is configured, so expansion (paraphrases and HyDE, one
            switch) runs and can be switched off, and rerank ``auto`` means the LLM grader.
        reranker_configured: a cross-encoder is configured, so rerank ``auto`` means it.

    Returns:
        Variants in a fixed order: expansion (with an LLM), floor, judge, rerank (off,
        or MMR/auto against each other), fusion weighting, then the two recall modes other than
        ``base.recall``.

    """
    replace = dataclasses.replace
    model_rerank = llm_configured or reranker_configured
    variants = []
    if llm_configured:
        variants.append(Variant("expand", "off (paraphrases and HyDE)" if base.expand else "on",
                                replace(base, expand=not base.expand)))
    variants += [
        Variant("floor", "off" if base.floor else "on",
                replace(base, floor=not base.floor), needs_vectors=True),
        Variant("judge", "off" if base.judge else "on", replace(base, judge=not base.judge)),
    ]
    rerank_modes: dict[RerankMode, str] = {"off": "off", "mmr": "mmr"}
    if model_rerank:  # without a model, `auto` is MMR: nothing to compare
        rerank_modes["auto"] = "auto (cross-encoder, else LLM)"
        if base.rerank == "auto":
            rerank_modes["mmr"] = "mmr instead of the model"
    elif base.rerank == "auto":
        del rerank_modes["mmr"]
    for mode, change in rerank_modes.items():
        if mode != base.rerank:
            variants.append(Variant("rerank", change, replace(base, rerank=mode)))
    variants.append(Variant("fusion", "plain RRF" if base.weighted_fusion else
                            "score-weighted RRF",
                            replace(base, weighted_fusion=not base.weighted_fusion)))
    recall_modes: dict[RecallMode, str] = {"hybrid": "hybrid", "bm25": "bm25 only",
                                           "vector": "vector only"}
    for recall, change in recall_modes.items():
        if recall != base.recall:
            variants.append(Variant("recall", change, replace(base, recall=recall),
                                    needs_vectors=True))
    return variants


def skipped_stages(*, llm_configured: bool, reranker_configured: bool,
                   created_at_distinct: int, has_vectors: bool) -> list[SkippedStage]:
    """The stages the check cannot measure in this setup, with the reason for each.

    Args:
        llm_configured: a chat model is configured (expansion, HyDE, LLM rerank).
        reranker_configured: a cross-encoder is configured.
        created_at_distinct: how many distinct ``created_at`` values the evaluated index holds.
        has_vectors: the index has vectors of the configured embedder.

    Returns:
        Skipped stages, in pipeline order.

    """
    skipped = []
    if not llm_configured:
        skipped.append(SkippedStage(
            "expand", "no LLM configured: query expansion and HyDE did not run, so there is "
            "nothing to switch off"))
    if created_at_distinct <= 1:
        skipped.append(SkippedStage(
            "decay", "every document of the set has the same created_at, so decay multiplies "
            "every score by the same factor and cannot change an order; it can only be measured "
            "on a set whose documents have different dates"))
    if not reranker_configured and not llm_configured:
        skipped.append(SkippedStage(
            "rerank (cross-encoder / LLM)", "none configured: rerank `auto` is MMR here, which "
            "the `rerank off` variant measures"))
    if not has_vectors:
        skipped.append(SkippedStage(
            "floor, recall modes", "no vectors (no embedder): the floor, vector-only and hybrid "
            "recall cannot run"))
    return skipped


def compare(variant: Variant, baseline: Mapping[str, float],
            metrics: Mapping[str, float]) -> Comparison:
    """Deltas of ``metrics`` (the variant's) against ``baseline``, and the verdict.

    Args:
        variant: the variant measured.
        baseline: the configured settings' metrics.
        metrics: the variant's metrics.

    Returns:
        The comparison; deltas are rounded to ``DELTA_DECIMALS``.

    """
    deltas = {name: round(metrics[name] - baseline[name], DELTA_DECIMALS)
              for name in baseline if name in metrics}
    signs = {direction * deltas[name] for name, direction in VERDICT_METRICS.items()
             if name in deltas and deltas[name] != 0}
    gains = any(s > 0 for s in signs)
    losses = any(s < 0 for s in signs)
    verdict: Verdict = ("mixed" if gains and losses else "better" if gains
                        else "worse" if losses else "same")
    return Comparison(variant, dict(metrics), deltas, verdict)


def parse_overrides(pairs: Iterable[str]) -> dict[str, Any]:
    """Parse ``key=value`` pipeline-setting overrides, converting each value to its field type.

    Booleans accept ``true/false/on/off/1/0/yes/no``; ``pool`` accepts ``none``; ``recall`` and
    ``rerank`` accept their modes only.

    Args:
        pairs: strings such as ``w_bm25=0`` or ``rerank=off``.

    Returns:
        Field name -> typed value, ready for ``dataclasses.replace``.

    Raises:
        ValueError: a pair has no ``=``, names no field of ``PipelineSettings``, or its value
            does not convert; the message lists the fields or the accepted values.

    """
    hints = typing.get_type_hints(PipelineSettings)
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key, text = key.strip(), text.strip()
        if not sep:
            raise ValueError(f"setting {pair!r} must be key=value")
        if key not in hints:
            raise ValueError(f"unknown pipeline setting {key!r}; known: {', '.join(hints)}")
        out[key] = _convert(key, text, hints[key])
    return out


def apply_overrides(base: PipelineSettings, overrides: Mapping[str, Any]) -> PipelineSettings:
    """``base`` with ``overrides`` (from ``parse_overrides``) applied."""
    return dataclasses.replace(base, **overrides)


def describe_settings(settings: PipelineSettings,
                      reference: PipelineSettings | None = None) -> str:
    """The fields of ``settings`` that differ from ``reference`` (default settings), as k=v."""
    reference = reference or PipelineSettings()
    changed = [f"{f.name}={getattr(settings, f.name)}" for f in dataclasses.fields(settings)
               if getattr(settings, f.name) != getattr(reference, f.name)]
    return ", ".join(changed) or "defaults"


_TRUE = {"true", "on", "1", "yes"}
_FALSE = {"false", "off", "0", "no"}


def _convert(key: str, text: str, hint: Any) -> Any:
    options: Sequence[Any]
    if typing.get_origin(hint) is Literal:
        options = typing.get_args(hint)
        if text not in options:
            raise ValueError(f"{key} must be one of {', '.join(options)}, got {text!r}")
        return text
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        options = typing.get_args(hint)
        if type(None) in options and text.lower() == "none":
            return None
        hint = next(t for t in options if t is not type(None))
    if hint is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise ValueError(f"{key} must be true or false, got {text!r}")
    try:
        return hint(text)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be {hint.__name__}, got {text!r}") from None
